import type { common, groupMembers } from "@canopy/protos";

/*
 * The user parts of a member as both member APIs answer them (GitLab's Member entity, for group and
 * project members alike): the member's user and who added them.
 */

/** The columns of a member list row that name the member (`u`) and who added them (`c`). */
export interface MemberUserColumns {
  user_id: number;
  username: string;
  name: string;
  state: string;
  avatar_url: string;
  email: string;
  created_by_id: number | null;
  created_by_username: string | null;
  created_by_name: string | null;
  created_by_state: string | null;
  created_by_avatar_url: string | null;
}

/**
 * A member's user as a member answer carries it: groups' MemberUser, the same message as projects'
 * ProjectMemberUser (one shape, two contracts).
 */
export type MemberUser = groupMembers.MemberUser;

/**
 * The member's user as `actor` may see them. The e-mail only for administrators: GitLab EE shows it
 * to them and to the owners of an enterprise user's group, and Canopy has no enterprise users.
 */
export const memberUserOf = (row: MemberUserColumns, actor: common.Actor): MemberUser => ({
  id: row.user_id,
  username: row.username,
  name: row.name,
  state: row.state,
  avatarUrl: row.avatar_url,
  email: actor.admin ? row.email : undefined,
});

/** Who added the member (never with an e-mail), or undefined when unknown. */
export const memberCreatedByOf = (row: MemberUserColumns): MemberUser | undefined =>
  row.created_by_id === null
    ? undefined
    : {
        id: row.created_by_id,
        username: row.created_by_username ?? "",
        name: row.created_by_name ?? "",
        state: row.created_by_state ?? "active",
        avatarUrl: row.created_by_avatar_url ?? "",
      };
