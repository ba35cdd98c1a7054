import type { AsyncService } from "@canopy/kit";
import type { settings } from "@canopy/protos";
import { updateApplicationSettings } from "../commands/application-settings";
import type { Deps } from "../deps";
import { getApplicationSettings } from "../finders/application-settings";

/** gRPC handlers for /application/settings: decode, call, encode. */
export const settingsService = (deps: Deps): AsyncService<typeof settings.SettingsServiceService> => ({
  getApplicationSettings: (req) => getApplicationSettings(deps, req.actor),
  updateApplicationSettings: (req) => updateApplicationSettings(deps, req.actor, req.changes ?? {}),
});
