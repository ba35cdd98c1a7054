/**
 * Helpers of the members contract tests: a client of GroupMembersService on the harness's groups
 * service, the member events a group recorded, and group links written straight into the schema
 * (the sharing API is built elsewhere; these tests only need the rows access.ts reads).
 */
import { filledClient } from "@canopy/kit/testing";
import { payloadOf } from "@canopy/kit";
import { events, GROUP_MEMBERS_IDEMPOTENT_METHODS, GROUPS_EVENTS, groupMembers } from "@canopy/protos";
import type { Harness, TestUser } from "./support";

/** The requests of the members API these tests call (the projects service's tests too). */
export const MEMBER_REQUESTS = {
  listMembers: groupMembers.ListMembersRequest,
  getMember: groupMembers.GetMemberRequest,
  addMember: groupMembers.AddMemberRequest,
  addMembers: groupMembers.AddMembersRequest,
  updateMember: groupMembers.UpdateMemberRequest,
  removeMember: groupMembers.RemoveMemberRequest,
  getUserHighestAccessLevel: groupMembers.GetUserHighestAccessLevelRequest,
};

export const { MEMBER_SCOPE_DIRECT: DIRECT, MEMBER_SCOPE_ALL: ALL } = groupMembers.MemberScope;

export const membersRpc = (h: Harness) =>
  filledClient(
    h.groupsService.client(groupMembers.GroupMembersServiceService, {
      idempotent: GROUP_MEMBERS_IDEMPOTENT_METHODS,
    }),
    MEMBER_REQUESTS,
  );
export type MembersRpc = ReturnType<typeof membersRpc>;

/** Adds `user` to the group through the API as `by` (an Owner). */
export const addAs = (
  rpc: MembersRpc,
  by: TestUser,
  groupId: number,
  user: TestUser,
  accessLevel: number,
  expiresAt = "",
) => rpc.addMember({ actor: by.actor, group: { id: groupId }, userId: user.user.id, accessLevel, expiresAt });

/** Shares `groupId` with `withGroupId` at `access` (a row as the sharing API writes it). */
export async function share(
  h: Harness,
  groupId: number,
  withGroupId: number,
  access: number,
  expiresAt?: string,
) {
  await h.db.query(
    "INSERT INTO group_links (shared_group_id, shared_with_group_id, group_access, expires_at) VALUES ($1, $2, $3, $4)",
    [groupId, withGroupId, access, expiresAt ?? null],
  );
}

export interface RecordedMemberEvent {
  type: "added" | "updated" | "removed";
  groupId: number;
  userId: number;
  accessLevel: number;
  expiresAt: string;
  oldAccessLevel?: number;
}

/** The member events recorded about `groupId`, oldest first. */
export async function memberEvents(h: Harness, groupId: number): Promise<RecordedMemberEvent[]> {
  const { rows } = await h.db.query<{ envelope: Buffer }>(
    "SELECT envelope FROM outbox WHERE subject = ANY($1) ORDER BY seq",
    [
      [
        GROUPS_EVENTS.memberAdded.subject,
        GROUPS_EVENTS.memberUpdated.subject,
        GROUPS_EVENTS.memberRemoved.subject,
      ],
    ],
  );
  const out: RecordedMemberEvent[] = [];
  for (const { envelope } of rows) {
    const event = events.Event.decode(envelope);
    const added = payloadOf(event, GROUPS_EVENTS.memberAdded);
    const updated = payloadOf(event, GROUPS_EVENTS.memberUpdated);
    const removed = payloadOf(event, GROUPS_EVENTS.memberRemoved);
    const [type, m] = added
      ? (["added", added.member] as const)
      : updated
        ? (["updated", updated.member] as const)
        : (["removed", removed?.member] as const);
    if (!m || m.groupId !== groupId) continue;
    out.push({
      type,
      groupId: m.groupId,
      userId: m.userId,
      accessLevel: m.accessLevel,
      expiresAt: m.expiresAt,
      ...(updated ? { oldAccessLevel: updated.oldAccessLevel } : {}),
    });
  }
  return out;
}
