import { runEventBackfill } from "@canopy/kit";
import type { Deps } from "../deps";
import { lockUsersAfter } from "../store/users";
import { recordUserUpdated } from "./user-events";

export const USER_SNAPSHOTS_BACKFILL = "user-snapshots";
const BATCH = 1000;

/**
 * Publishes a UserUpdated snapshot of every user once, for a deployment that had users before auth
 * published snapshots: a new consumer reading the stream from its start (7 days) then sees every
 * user, not only those changed since. Runs at every start and returns at once when done.
 *
 * Each batch is one transaction that holds the backfill's row (migration 0006), so replicas starting
 * together take turns and each batch is published by exactly one of them; the progress commits with
 * the batch's events, so a replica that dies half way leaves the rest to the next one (the kit's
 * runEventBackfill). On a fresh database the migration runs before root exists: the first pass finds
 * nobody and marks it done, and root's UserCreated carries its snapshot.
 */
export async function backfillUserSnapshots(deps: Deps, batch = BATCH): Promise<void> {
  const published = await runEventBackfill(
    deps.pool,
    USER_SNAPSHOTS_BACKFILL,
    async (tx, afterId, limit) => {
      const users = await lockUsersAfter(tx, afterId, limit);
      for (const user of users) await recordUserUpdated(tx, user);
      return users.map((u) => u.id);
    },
    batch,
  );
  if (published) deps.log.info({ users: published }, "published user snapshots of existing users");
}
