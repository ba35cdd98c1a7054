/**
 * Helpers of the LDAP HTTP tests: groups and memberships made through the API (so the ldap
 * service's copies fill from the groups service's events, as in production), and a wait until the
 * ldap service has copied a group and a membership.
 */
import { signedInUser, unique, waitFor, type Gateway, type SignedIn, type Stack } from "./support";

export async function newGroup(
  gw: Gateway,
  token: string,
  options: { visibility?: string; parentId?: number } = {},
) {
  const path = unique("ldap_");
  const res = await gw.post("/api/v4/groups", {
    token,
    json: { name: path, path, visibility: options.visibility ?? "private", parent_id: options.parentId },
  });
  if (res.status !== 201) throw new Error(`POST /groups answered ${res.status} ${res.text}`);
  return res.body as { id: number; full_path: string };
}

/** A new user made a direct member of the group through the members API (nothing when 0). */
export async function memberOf(
  stack: Stack,
  ownerToken: string,
  groupId: number,
  accessLevel: number,
): Promise<SignedIn> {
  const signedIn = await signedInUser(stack);
  if (!accessLevel) return signedIn;
  const res = await stack.gw.post(`/api/v4/groups/${groupId}/members`, {
    token: ownerToken,
    json: { user_id: signedIn.user.id, access_level: accessLevel },
  });
  if (res.status !== 201) throw new Error(`adding a member answered ${res.status} ${res.text}`);
  return signedIn;
}

/** Waits until the ldap service's copy holds the user's membership of the group at that level. */
export async function copiedMembership(stack: Stack, groupId: number, userId: number, accessLevel: number) {
  await waitFor("the ldap copy of the membership", async () => {
    const { rows } = await stack.db.query(
      "SELECT 1 FROM ldap.group_members WHERE namespace_id = $1 AND user_id = $2 AND access_level = $3",
      [groupId, userId, accessLevel],
    );
    return rows.length > 0;
  });
}

export const linksUrl = (id: number | string) => `/api/v4/groups/${id}/ldap_group_links`;
