import { recordEvent, withTransaction } from "@canopy/kit";
import { GROUPS_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import { namespaceSnapshot } from "../events/snapshot";
import {
  claimRemoval,
  deleteSubtree,
  dropRemoval,
  markIsDue,
  postponeRemoval,
  queueDueRemovals,
  tryLockRoot,
} from "../store/lifecycle";
import { findNamespaceById } from "../store/namespaces";

type Outcome = "removed" | "postponed" | "none";

/**
 * Takes one queued removal (FOR UPDATE SKIP LOCKED: replicas take different ones) and removes the
 * group's subtree, deepest first, one GroupRemoved each. The tree's root is locked only if free
 * (SKIP LOCKED again): a worker never waits for a root while holding a job, so a worker removing an
 * ancestor (whose cascade deletes this job) never waits on it in a cycle. A busy tree's job is put
 * off a second and the next one is taken.
 */
export async function removeOneQueued(deps: Deps): Promise<Outcome> {
  return withTransaction(deps.pool, async (tx) => {
    const job = await claimRemoval(tx);
    if (!job) return "none";
    const before = await findNamespaceById(tx, job.namespace_id);
    const root = before?.traversal_ids[0];
    if (root === undefined || !(await tryLockRoot(tx, root))) {
      await postponeRemoval(tx, job.namespace_id);
      return "postponed";
    }
    // Read again under the lock: a transfer that committed meanwhile may have moved it elsewhere.
    const row = await findNamespaceById(tx, job.namespace_id);
    if (!row || row.traversal_ids[0] !== root) {
      await postponeRemoval(tx, job.namespace_id);
      return "postponed";
    }
    // A mark restored (or a period lengthened) after the job was queued removes nothing.
    const period = deps.settings.current().deletionAdjournedPeriod;
    if (job.reason === "adjourned" && !(await markIsDue(tx, row.id, period))) {
      await dropRemoval(tx, row.id);
      return "postponed";
    }
    const removed = await deleteSubtree(tx, row.traversal_ids);
    for (const group of removed)
      await recordEvent(tx, GROUPS_EVENTS.groupRemoved, { group: namespaceSnapshot(group) });
    deps.log.info({ groupId: row.id, removed: removed.length, reason: job.reason }, "group removed");
    return "removed";
  });
}

/** Works through due removals until none is left (or `limit` were taken). */
export async function runQueuedRemovals(deps: Deps, limit = 100): Promise<number> {
  let removed = 0;
  for (let i = 0; i < limit; i++) {
    const outcome = await removeOneQueued(deps);
    if (outcome === "none") break;
    if (outcome === "removed") removed++;
  }
  return removed;
}

/**
 * The adjourned-deletion scheduler (GitLab's AdjournedGroupDeletionWorker): queues every group
 * marked `deletion_adjourned_period` days ago or earlier, then removes what is queued. All state is
 * in the database, so every replica may run it at the same time.
 */
export async function runAdjournedDeletions(deps: Deps): Promise<number> {
  await queueDueRemovals(deps.pool, deps.settings.current().deletionAdjournedPeriod);
  return runQueuedRemovals(deps);
}
