import { loadInstanceKeys, resealTask, SealingKeys, type BackgroundTask, type Queryable } from "@canopy/kit";
import type { GroupsConfig } from "./config";
import type { Deps } from "./deps";
import { runnersTokenContext } from "./domain/runners-token";

/**
 * The keys that seal this service's secrets at rest (runners tokens), derived for that one purpose
 * from the instance key: CANOPY_SECRET_KEY when set, otherwise a key generated once and kept in
 * `instance_secrets`, so every replica and every restart opens what another sealed.
 */
export async function runnersTokenKeys(
  db: Queryable,
  config: Pick<GroupsConfig, "CANOPY_SECRET_KEY" | "CANOPY_SECRET_KEY_PREVIOUS">,
): Promise<SealingKeys> {
  return new SealingKeys(await loadInstanceKeys(db, "instance_key", config), "groups-runners-token");
}

/** After a key rotation: every group's runners token moved to the current key. */
export const resealRunnersTokens = (deps: Deps): BackgroundTask[] =>
  resealTask(deps, deps.runnersTokenKeys, {
    table: "namespaces",
    key: "id",
    columns: ["runners_token_encrypted"],
    contextOf: (id) => runnersTokenContext(id),
  });
