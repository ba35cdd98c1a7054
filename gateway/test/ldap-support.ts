/**
 * Helpers of the LDAP HTTP tests: groups and memberships made through the API (so the ldap
 * service's copies fill from the groups service's events, as in production), and a wait until the
 * ldap service has copied a group and a membership.
 */
import { normalizeDn } from "@canopy/kit";
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

/**
 * A new user holding the LDAP identity `dn` of `provider`, made by an administrator through
 * `POST /users` with `provider` + `extern_uid`; waits until auth's event brought the identity to
 * the ldap service.
 */
export async function ldapUser(stack: Stack, dn: string, provider = "ldapmain"): Promise<SignedIn> {
  const signedIn = await signedInUser(stack, ["api"], { provider, extern_uid: dn });
  await copiedIdentity(stack, signedIn.user.id, dn, provider);
  return signedIn;
}

/** An existing user gets the identity (`PUT /users/:id`), as far as the ldap service's copy. */
export async function giveIdentity(stack: Stack, userId: number, dn: string, provider = "ldapmain") {
  const res = await stack.gw.put(`/api/v4/users/${userId}`, {
    token: stack.rootToken,
    json: { provider, extern_uid: dn },
  });
  if (res.status !== 200) throw new Error(`PUT /users answered ${res.status} ${res.text}`);
  await copiedIdentity(stack, userId, dn, provider);
}

export async function copiedIdentity(stack: Stack, userId: number, dn: string, provider = "ldapmain") {
  await waitFor("the ldap copy of the identity", async () => {
    const { rows } = await stack.db.query(
      "SELECT 1 FROM ldap.identities WHERE user_id = $1 AND provider = $2 AND dn_key = $3",
      [userId, provider, normalizeDn(dn)],
    );
    return rows.length > 0;
  });
}

export interface SyncState {
  status: string;
  generation: number;
  error: string | null;
  unknown_dns: number;
  desired_members: number;
  last_sync_at: Date | null;
  last_update_at: Date | null;
  last_successful_update_at: Date | null;
}

export async function syncState(stack: Stack, groupId: number): Promise<SyncState | undefined> {
  const { rows } = await stack.db.query<SyncState>(
    `SELECT status, generation::int, error, unknown_dns, desired_members, last_sync_at, last_update_at,
            last_successful_update_at FROM ldap.group_syncs WHERE group_id = $1`,
    [groupId],
  );
  return rows[0];
}

/** Waits until a sync later than generation `after` has finished (ready or failed); its state. */
export async function syncFinished(stack: Stack, groupId: number, after: number, timeoutMs = 10_000) {
  return waitFor(
    `an ldap sync of group ${groupId} after generation ${after}`,
    async () => {
      const state = await syncState(stack, groupId);
      return state && state.generation > after && ["ready", "failed"].includes(state.status)
        ? state
        : undefined;
    },
    timeoutMs,
  );
}

/** POST /groups/:id/ldap_sync as `token`, then the finished sync's state. */
export async function syncNow(
  stack: Stack,
  token: string,
  groupId: number,
  timeoutMs?: number,
): Promise<SyncState> {
  const before = (await syncState(stack, groupId))?.generation ?? 0;
  const res = await stack.gw.post(`/api/v4/groups/${groupId}/ldap_sync`, { token });
  if (res.status !== 202) throw new Error(`ldap_sync answered ${res.status} ${res.text}`);
  return syncFinished(stack, groupId, before, timeoutMs);
}

/** POST /groups/:id/ldap_group_links (201 expected). */
export async function link(
  stack: Stack,
  token: string,
  groupId: number,
  by: { cn?: string; filter?: string },
  groupAccess: number,
  provider = "ldapmain",
) {
  const res = await stack.gw.post(linksUrl(groupId), {
    token,
    json: { ...by, group_access: groupAccess, provider },
  });
  if (res.status !== 201) throw new Error(`linking answered ${res.status} ${res.text}`);
}

/** The group's direct members as user id -> access level (GET /groups/:id/members). */
export async function directMembers(stack: Stack, token: string, groupId: number) {
  const res = await stack.gw.get(`/api/v4/groups/${groupId}/members?per_page=100`, { token });
  if (res.status !== 200) throw new Error(`members answered ${res.status} ${res.text}`);
  return new Map((res.body as { id: number; access_level: number }[]).map((m) => [m.id, m.access_level]));
}
