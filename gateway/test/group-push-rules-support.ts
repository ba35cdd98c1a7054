/**
 * Helpers of the push-rule HTTP tests: groups made through the API, memberships written straight
 * into the groups service's table (the members API is another area's), and the rule's row.
 */
import { signedInUser, unique, type Gateway, type SignedIn, type Stack } from "./support";
import { insertMembership } from "../../services/groups/test/memberships";

/** A top-level group (or a subgroup of `parentId`) made by `token`'s user through POST /groups. */
export async function newGroup(
  gw: Gateway,
  token: string,
  options: { visibility?: string; parentId?: number } = {},
) {
  const path = unique("pr_");
  const res = await gw.post("/api/v4/groups", {
    token,
    json: { name: path, path, visibility: options.visibility ?? "private", parent_id: options.parentId },
  });
  if (res.status !== 201) throw new Error(`POST /groups answered ${res.status} ${res.text}`);
  return res.body as { id: number; full_path: string };
}

/** A new user who is a direct member of the group at `accessLevel` (nothing when 0). */
export async function memberOf(stack: Stack, groupId: number, accessLevel: number): Promise<SignedIn> {
  const signedIn = await signedInUser(stack);
  if (accessLevel) await insertMembership(stack.db, { groupId, userId: signedIn.user.id, accessLevel });
  return signedIn;
}

/** The group's push_rules row, or undefined. */
export async function pushRuleRow(stack: Stack, groupId: number) {
  const { rows } = await stack.db.query("SELECT * FROM groups.push_rules WHERE namespace_id = $1", [groupId]);
  return rows[0] as Record<string, unknown> | undefined;
}

export const url = (id: number | string) => `/api/v4/groups/${id}/push_rule`;
export const NOT_FOUND = { message: "404 Not Found" };
/** Parameters in a JSON body, or in the query string of a GET (which has no body). */
export const bodyFor = (method: string, json: Record<string, unknown>) => (method === "GET" ? {} : { json });
