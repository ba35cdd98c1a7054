import { requireAdmin } from "@canopy/kit";
import type { common, settings } from "@canopy/protos";
import type { Deps } from "../deps";
import * as store from "../store/application-settings";

/** The current settings, for administrators. Auth's own code reads the row through `currentSettings`. */
export async function getApplicationSettings(
  deps: Deps,
  actor: common.Actor | undefined,
): Promise<settings.ApplicationSettings> {
  requireAdmin(actor);
  return currentSettings(deps);
}

/** The row as it is now: auth is the writer, so it reads its own table rather than the mirror. */
export async function currentSettings(deps: Pick<Deps, "pool">): Promise<settings.ApplicationSettings> {
  return store.toSettings(await store.findSettings(deps.pool));
}
