/**
 * Helpers of the group sharing and custom attributes HTTP tests: groups made through the API, and
 * direct memberships written as the members API would write them (not this area's endpoints).
 */
import { signedInUser, unique, waitFor, type SignedIn, type Stack } from "./support";
import { insertMembership } from "../../services/groups/test/memberships";

export interface ApiGroup {
  id: number;
  name: string;
  path: string;
  full_path: string;
  [field: string]: unknown;
}

/** A group made by `token`'s user through POST /groups; fails the test unless it answers 201. */
export async function newGroup(
  stack: Stack,
  token: string,
  attributes: Record<string, unknown> = {},
): Promise<ApiGroup> {
  const path = unique("g_");
  const res = await stack.gw.post("/api/v4/groups", { token, json: { name: path, path, ...attributes } });
  if (res.status !== 201) throw new Error(`creating a group: ${res.status} ${res.text}`);
  return res.body as ApiGroup;
}

/** A signed-in user whose copy the groups service already has (so memberships can name them). */
export async function knownUser(stack: Stack, attributes: Record<string, unknown> = {}): Promise<SignedIn> {
  const u = await signedInUser(stack, ["api"], attributes);
  await waitFor(
    `user ${u.user.id} to reach the groups service`,
    async () =>
      (await stack.db.query("SELECT 1 FROM groups.users WHERE id = $1", [u.user.id])).rowCount === 1,
    15_000,
  );
  return u;
}

export const addMember = (stack: Stack, groupId: number, userId: number, accessLevel: number) =>
  insertMembership(stack.db, { groupId, userId, accessLevel });

/** The links of a shared group, as stored. */
export async function storedLinks(stack: Stack, sharedGroupId: number) {
  const { rows } = await stack.db.query(
    `SELECT shared_with_group_id, group_access, to_char(expires_at, 'YYYY-MM-DD') AS expires_at
       FROM groups.group_links WHERE shared_group_id = $1 ORDER BY id`,
    [sharedGroupId],
  );
  return rows;
}
