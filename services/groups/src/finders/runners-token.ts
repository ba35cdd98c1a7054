import type { Queryable } from "@canopy/kit";
import { newRunnersToken, openRunnersToken, sealRunnersToken } from "../domain/runners-token";
import type { Deps } from "../deps";
import type { NamespaceRow } from "../store/namespaces";
import { keepRunnersToken } from "../store/runners-tokens";

/**
 * The group's runners token in clear, for a caller already known to administer the group. Groups
 * are given one at creation; a group made before tokens existed (or written straight into the
 * schema, as the benchmark's generator does) gets one on its first read here instead of by a
 * migration, which could not seal without the service's key.
 */
export async function runnersTokenOf(
  deps: Deps,
  row: Pick<NamespaceRow, "id" | "runners_token_encrypted">,
  db: Queryable = deps.pool,
): Promise<string> {
  const sealed =
    row.runners_token_encrypted ??
    (await keepRunnersToken(db, row.id, sealRunnersToken(deps.runnersTokenKeys, row.id, newRunnersToken())));
  return openRunnersToken(deps.runnersTokenKeys, row.id, sealed);
}
