import { withTransaction, type PoolClient } from "@canopy/kit";
import type { Deps } from "../deps";
import { lockTreesOf, type NamespaceRow } from "../store/namespaces";

/**
 * Runs `work` in a transaction holding the locks of the trees the namespaces `ids` are in (see
 * lockTreesOf), with the rows read again under those locks; a missing id reads as undefined.
 */
export async function withTreesLocked<T>(
  deps: Deps,
  ids: number[],
  work: (tx: PoolClient, rows: (NamespaceRow | undefined)[]) => Promise<T>,
): Promise<T> {
  return withTransaction(deps.pool, async (tx) => work(tx, await lockTreesOf(tx, ids)));
}
