import type { Deps } from "../deps";
import { currentSettings } from "../finders/application-settings";

/**
 * Makes the KV bucket hold the stored settings: after each update, at start, and periodically
 * (a write lost while NATS was away is repaired by the next pass).
 */
export const mirrorSettings = (deps: Deps): Promise<void> =>
  deps.settingsMirror.sync(() => currentSettings(deps));
