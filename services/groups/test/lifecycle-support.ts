/**
 * Helpers of the deletion, restore and transfer tests (lifecycle-*.test.ts, transfer-*.test.ts).
 */
import {
  filledClient,
  startTestService,
  unique,
  utcDate,
  waitFor,
  type TestService,
} from "@canopy/kit/testing";
import {
  encodeSettings,
  DEFAULT_APPLICATION_SETTINGS,
  openSettingsBucket,
  SETTINGS_KEY,
  type Pool,
} from "@canopy/kit";
import { events, groupEvents, groupLifecycle, GROUPS_EVENTS, type common } from "@canopy/protos";
import type { GroupsConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { groupsServiceDefinition } from "../src/service";
import type { Harness, TestUser } from "./support";
import { insertMembership } from "./memberships";

/** The requests of the lifecycle API these tests call (the projects service's tests too). */
export const LIFECYCLE_REQUESTS = {
  deleteGroup: groupLifecycle.DeleteGroupRequest,
  restoreGroup: groupLifecycle.RestoreGroupRequest,
  transferGroup: groupLifecycle.TransferGroupRequest,
};

export const lifecycleRpc = (service: TestService<GroupsConfig, Deps>) =>
  filledClient(service.client(groupLifecycle.GroupLifecycleServiceService), LIFECYCLE_REQUESTS);

/** Today in UTC as "YYYY-MM-DD" (what marked_for_deletion_on holds after a DELETE today). */
export const utcToday = () => utcDate(0);

/** Gives `user` a direct membership (the members API is another part of the service). */
export const addMember = (h: Harness, groupId: number, user: TestUser, accessLevel: number) =>
  insertMembership(h.db, { groupId, userId: user.user.id, accessLevel });

/** Moves a group's mark `days` into the past, as if it had been deleted then. */
export async function backdateMark(db: Pool, groupId: number, days: number) {
  await db.query(
    `UPDATE namespaces SET marked_for_deletion_on = (now() AT TIME ZONE 'utc')::date - $2::int WHERE id = $1`,
    [groupId, days],
  );
}

export async function namespaceRow(db: Pool, id: number) {
  const { rows } = await db.query<{
    id: number;
    parent_id: number | null;
    traversal_ids: number[];
    full_path: string;
    full_name: string;
    visibility_level: number;
    pending_removal: boolean;
  }>("SELECT * FROM namespaces WHERE id = $1", [id]);
  return rows[0];
}

export async function exists(db: Pool, id: number) {
  return (await db.query("SELECT 1 FROM namespaces WHERE id = $1", [id])).rowCount === 1;
}

export const waitRemoved = (db: Pool, id: number) =>
  waitFor(`group ${id} to be removed`, async () => !(await exists(db, id)), 15_000);

/** The outbox's events of one kind about the namespaces `ids`, in the order they were recorded. */
export async function recordedEvents<T extends { group?: groupEvents.NamespaceSnapshot }>(
  db: Pool,
  kind: { subject: string; codec: { decode(b: Uint8Array): T } },
  ids: number[],
): Promise<T[]> {
  const { rows } = await db.query<{ envelope: Buffer }>(
    "SELECT envelope FROM outbox WHERE subject = $1 ORDER BY seq",
    [kind.subject],
  );
  return rows
    .map((r) => kind.codec.decode(events.Event.decode(r.envelope).payload))
    .filter((p) => ids.includes(p.group?.id ?? 0));
}

export const removedEvents = (db: Pool, ids: number[]) => recordedEvents(db, GROUPS_EVENTS.groupRemoved, ids);

/**
 * One more replica of the groups service on the same schema with its own settings snapshot (a bucket
 * of its own holding `settings`), so a test may run with values auth would never publish. Its
 * adjourned-deletion scheduler is off: with such settings it must not act on other tests' groups.
 */
export async function startReplicaWithSettings(
  h: Harness,
  settings: Partial<typeof DEFAULT_APPLICATION_SETTINGS>,
  env: NodeJS.ProcessEnv = {},
): Promise<TestService<GroupsConfig, Deps>> {
  const bucket = unique("lifecycle_settings_");
  const kv = await openSettingsBucket(h.groupsService.nc, bucket);
  await kv.put(SETTINGS_KEY, encodeSettings({ ...DEFAULT_APPLICATION_SETTINGS, ...settings }));
  const replica = await startTestService(groupsServiceDefinition, {
    env: { CANOPY_SETTINGS_BUCKET: bucket, CANOPY_GROUPS_ADJOURNED_DELETION_MS: "0", ...env },
  });
  return {
    ...replica,
    stop: async () => {
      await replica.stop();
      await kv.destroy();
    },
  };
}

export type Actor = common.Actor;
