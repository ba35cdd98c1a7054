import { recordEvent, runEventBackfill, type PublishBackfillBatch } from "@canopy/kit";
import { GROUPS_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import { namespaceSnapshot } from "../events/snapshot";
import { NAMESPACE_COLUMNS, type NamespaceRow } from "../store/namespaces";
import { MEMBER_COLUMNS, type MemberRow } from "../store/members";
import { membershipOf } from "./members-common";

const BATCH = 1000;

/**
 * One backfill: a table read in id order, batch by batch, each row locked (FOR UPDATE) while its
 * snapshot is recorded, so a change made meanwhile waits and its own event follows the snapshot.
 */
interface Backfill {
  name: string;
  publishBatch: PublishBackfillBatch;
}

const namespaces: Backfill = {
  name: "namespace-snapshots",
  publishBatch: async (tx, afterId, batch) => {
    const { rows } = await tx.query<NamespaceRow>(
      `SELECT ${NAMESPACE_COLUMNS} FROM namespaces n WHERE n.id > $1 ORDER BY n.id LIMIT $2 FOR UPDATE`,
      [afterId, batch],
    );
    for (const row of rows)
      await recordEvent(tx, GROUPS_EVENTS.namespaceRepublished, { namespace: namespaceSnapshot(row) });
    return rows.map((r) => Number(r.id));
  },
};

const memberships: Backfill = {
  name: "membership-snapshots",
  publishBatch: async (tx, afterId, batch) => {
    const { rows } = await tx.query<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.id > $1 ORDER BY m.id LIMIT $2 FOR UPDATE`,
      [afterId, batch],
    );
    for (const row of rows)
      await recordEvent(tx, GROUPS_EVENTS.membershipRepublished, { member: membershipOf(row) });
    return rows.map((r) => Number(r.id));
  },
};

const shares: Backfill = {
  name: "group-share-snapshots",
  publishBatch: async (tx, afterId, batch) => {
    const { rows } = await tx.query<{
      id: string;
      shared_group_id: string;
      shared_with_group_id: string;
      group_access: number;
      expires_at: string | null;
    }>(
      `SELECT id, shared_group_id, shared_with_group_id, group_access,
              to_char(expires_at, 'YYYY-MM-DD') AS expires_at
         FROM group_links WHERE id > $1 ORDER BY id LIMIT $2 FOR UPDATE`,
      [afterId, batch],
    );
    for (const l of rows)
      await recordEvent(tx, GROUPS_EVENTS.groupShareRepublished, {
        share: {
          sharedGroupId: Number(l.shared_group_id),
          sharedWithGroupId: Number(l.shared_with_group_id),
          groupAccess: l.group_access,
          expiresAt: l.expires_at ?? "",
        },
      });
    return rows.map((r) => Number(r.id));
  },
};

/** Namespaces first: a consumer then meets a membership's group before the membership. */
export const SNAPSHOT_BACKFILLS = [namespaces, memberships, shares];

/**
 * Publishes a snapshot of every namespace, group membership and group share once (migration 0011),
 * so a consumer that joins an existing deployment (the projects service) learns what the stream no
 * longer holds. Runs after each start and returns at once when done; resumable and safe with
 * replicas (the kit's runEventBackfill): each batch is one transaction holding the backfill's row,
 * its progress committed with its events.
 */
export async function backfillSnapshots(deps: Deps, batch = BATCH): Promise<void> {
  for (const backfill of SNAPSHOT_BACKFILLS) {
    const published = await runEventBackfill(deps.pool, backfill.name, backfill.publishBatch, batch);
    if (published)
      deps.log.info({ backfill: backfill.name, published }, "published snapshots of existing data");
  }
}
