import { recordEvent, runEventBackfill, type PublishBackfillBatch, type Timer } from "@canopy/kit";
import { PROJECTS_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { lockProjectLinksAfter } from "../store/project-links";
import { lockProjectMembershipsAfter } from "../store/project-members";
import { lockProjectsAfter } from "../store/projects";
import { membershipOf } from "./members-add";

export const PROJECT_SNAPSHOTS_BACKFILL = "project-snapshots";
const BATCH = 1000;

/**
 * One backfill: a table read in id order, batch by batch (the kit's runEventBackfill), each row
 * locked (FOR UPDATE) while its snapshot is recorded, so a change made meanwhile waits and its own
 * event follows the snapshot.
 */
interface Backfill {
  name: string;
  publishBatch: PublishBackfillBatch;
}

const projects: Backfill = {
  name: PROJECT_SNAPSHOTS_BACKFILL,
  publishBatch: async (tx, afterId, batch) => {
    const rows = await lockProjectsAfter(tx, afterId, batch);
    for (const project of rows)
      await recordEvent(tx, PROJECTS_EVENTS.projectRepublished, { project: projectSnapshot(project) });
    return rows.map((r) => r.id);
  },
};

const memberships: Backfill = {
  name: "project-membership-snapshots",
  publishBatch: async (tx, afterId, batch) => {
    const rows = await lockProjectMembershipsAfter(tx, afterId, batch);
    for (const m of rows)
      await recordEvent(tx, PROJECTS_EVENTS.memberRepublished, { member: membershipOf(m) });
    return rows.map((r) => r.id);
  },
};

const shares: Backfill = {
  name: "project-share-snapshots",
  publishBatch: async (tx, afterId, batch) => {
    const rows = await lockProjectLinksAfter(tx, afterId, batch);
    for (const l of rows)
      await recordEvent(tx, PROJECTS_EVENTS.shareRepublished, {
        share: {
          projectId: l.project_id,
          groupId: l.group_id,
          groupAccess: l.group_access,
          expiresAt: l.expires_at ?? "",
        },
      });
    return rows.map((r) => r.id);
  },
};

/** Projects first: the groups service's copy then meets a membership's project before it. */
export const SNAPSHOT_BACKFILLS = [projects, memberships, shares];

/**
 * Publishes a snapshot of every project (migration 0006: ProjectRepublished), and of every direct
 * project membership and share of a project with a group (migration 0008: ProjectMemberRepublished,
 * ProjectShareRepublished), once, so a consumer that joins an existing deployment (the groups
 * service's copies of projects and of who sees them) learns what the stream (7 days) no longer
 * holds. Runs after each start and returns at once when done.
 *
 * Each batch is one transaction holding the backfill's row, so replicas take turns and each batch is
 * published by exactly one of them; its progress commits with its events, so a replica stopped half
 * way leaves the rest to the next (the kit's runEventBackfill).
 */
export async function backfillProjectSnapshots(deps: Deps, batch = BATCH): Promise<void> {
  for (const backfill of SNAPSHOT_BACKFILLS) {
    const published = await runEventBackfill(deps.pool, backfill.name, backfill.publishBatch, batch);
    if (published)
      deps.log.info({ backfill: backfill.name, published }, "published snapshots of existing data");
  }
}

/** After each start (and hourly, at no cost once done): the backfills, until they are done. */
export const snapshotBackfillTimer = (deps: Deps): Timer => ({
  name: "project snapshot backfill",
  everyMs: 3600_000,
  afterStart: true,
  run: () => backfillProjectSnapshots(deps),
});
