/**
 * Helpers of the group-list tests: memberships, shares and custom attributes written straight into
 * the schema (their own APIs are other areas' work), and a `list` call with defaults filled.
 *
 * Lists run beside other test files on one database: a test that lists as an administrator or
 * anonymously narrows the list to its own groups with a `search` of a prefix only it uses.
 */
import { groups, type common } from "@canopy/protos";
import type { Harness, TestUser } from "./support";
import { insertMembership } from "./memberships";

export const actorOf = (who: TestUser | common.Actor) => ("actor" in who ? who.actor : who);

/** Adds (or changes) a direct membership, as the members API will. */
export const addMember = (
  h: Harness,
  groupId: number,
  who: TestUser,
  accessLevel: number,
  expiresAt: string | null = null,
) => insertMembership(h.db, { groupId, userId: who.user.id, accessLevel, expiresAt });

/** Shares `groupId` with `withGroupId` at `access`, as POST /groups/:id/share will. */
export async function share(h: Harness, groupId: number, withGroupId: number, access: number) {
  await h.db.query(
    "INSERT INTO group_links (shared_group_id, shared_with_group_id, group_access) VALUES ($1, $2, $3)",
    [groupId, withGroupId, access],
  );
}

export async function setCustomAttribute(h: Harness, groupId: number, key: string, value: string) {
  await h.db.query(
    `INSERT INTO custom_attributes (namespace_id, key, value) VALUES ($1, $2, $3)
     ON CONFLICT (namespace_id, key) DO UPDATE SET value = $3`,
    [groupId, key, value],
  );
}

export type ListOptions = Partial<Omit<groups.ListGroupsRequest, "actor" | "parent" | "page">> & {
  parent?: Partial<groups.GroupRef>;
  page?: Partial<common.PageRequest>;
};

/** ListGroups as `who` with GitLab's defaults for everything not given. */
export function list(h: Harness, who: TestUser | common.Actor, options: ListOptions = {}) {
  return h.rpc.listGroups({
    scope: groups.GroupScope.GROUP_SCOPE_ALL,
    page: { page: 1, perPage: 100, keyset: false, cursor: "" },
    ...options,
    actor: actorOf(who),
  });
}

/** The ids of a list answer, in order. */
export const idsOf = (res: groups.ListGroupsResponse) => res.groups.map((g) => g.id);
export const pathsOf = (res: groups.ListGroupsResponse) => res.groups.map((g) => g.path);
