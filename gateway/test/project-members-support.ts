/**
 * Helpers of the project members, sharing and permission-matrix tests: users whose copies the
 * projects service holds, groups and projects made through the API, and waits for the copies the
 * projects service keeps from the groups service's events.
 */
import { signedInUser, unique, waitFor, type SignedIn, type Stack } from "./support";

export type Json = Record<string, unknown>;

/** A signed-in user known to both the groups and the projects service. */
export async function knownUser(stack: Stack, attributes: Record<string, unknown> = {}): Promise<SignedIn> {
  const u = await signedInUser(stack, ["api"], attributes);
  await waitFor(
    `user ${u.user.id} to reach groups and projects`,
    async () =>
      (
        await stack.db.query(
          "SELECT 1 FROM groups.users g JOIN projects.users p USING (id) WHERE g.id = $1",
          [u.user.id],
        )
      ).rowCount === 1,
    15_000,
  );
  return u;
}

/** A group made by `token`'s user; waits until the projects service holds its copy. */
export async function newGroup(stack: Stack, token: string, attributes: Record<string, unknown> = {}) {
  const path = unique("g_");
  const res = await stack.gw.post("/api/v4/groups", { token, json: { name: path, path, ...attributes } });
  if (res.status !== 201) throw new Error(`creating a group: ${res.status} ${res.text}`);
  const group = res.body as { id: number; name: string; full_path: string };
  await waitFor(
    `group ${group.id} to reach projects`,
    async () =>
      (await stack.db.query("SELECT 1 FROM projects.namespaces WHERE id = $1", [group.id])).rowCount === 1,
    15_000,
  );
  return group;
}

/** A project made by `token`'s user (in `namespace_id` when given). */
export async function newProject(stack: Stack, token: string, attributes: Record<string, unknown> = {}) {
  const res = await stack.gw.post("/api/v4/projects", { token, json: { name: unique("p_"), ...attributes } });
  if (res.status !== 201) throw new Error(`creating a project: ${res.status} ${res.text}`);
  return res.body as { id: number; path_with_namespace: string } & Json;
}

/** Adds a group member through the groups API and waits for the projects service's copy. */
export async function addGroupMember(
  stack: Stack,
  token: string,
  groupId: number,
  userId: number,
  accessLevel: number,
) {
  const res = await stack.gw.post(`/api/v4/groups/${groupId}/members`, {
    token,
    json: { user_id: userId, access_level: accessLevel },
  });
  if (res.status !== 201) throw new Error(`adding a group member: ${res.status} ${res.text}`);
  await waitFor(
    `membership of ${userId} in ${groupId} to reach projects`,
    async () =>
      (
        await stack.db.query(
          "SELECT 1 FROM projects.group_members WHERE namespace_id = $1 AND user_id = $2 AND access_level = $3",
          [groupId, userId, accessLevel],
        )
      ).rowCount === 1,
    15_000,
  );
}

/** The subjects the projects service recorded since `since` (its outbox; other tests add theirs). */
export async function recordedSubjects(stack: Stack, since: Date): Promise<string[]> {
  const { rows } = await stack.db.query<{ subject: string }>(
    "SELECT subject FROM projects.outbox WHERE created_at >= $1 ORDER BY seq",
    [since],
  );
  return rows.map((r) => r.subject);
}
