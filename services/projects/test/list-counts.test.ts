/**
 * The kept counts of the project lists (migration 0005, store/list-counts.ts): X-Total comes from a
 * kept count while nothing that could move it changed, and every change that does (a project made,
 * removed, made private, archived; a membership, share or star; a group marked; a user blocked) is
 * seen by the very next list of the same caller. Pages of one row, so every count is a real one.
 */
import { observeListCountBumps } from "@canopy/kit/testing";
import type { projects } from "@canopy/protos";
import { startHarness, unique, type Harness, type TestUser } from "./support";

let h: Harness;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newUser();
});
afterAll(() => h.stop());

type Filters = Partial<Omit<projects.ListProjectsRequest, "actor" | "search" | "page">>;

/** X-Total of the caller's list of projects named `tag`: one-row pages, so a count is always made. */
const totalOf = async (who: TestUser, tag: string, filters: Filters = {}) =>
  (await h.rpc.listProjects({ actor: who.actor, search: tag, page: { page: 1, perPage: 1 }, ...filters }))
    .page!.total;

/** Projects named `tag-...` in the group, made by the owner. */
const projectsIn = async (groupId: number, tag: string, visibility: string, n: number) => {
  const made = [];
  for (let i = 0; i < n; i++)
    made.push(await h.newProject(owner, groupId, { path: unique(`${tag}-`), visibility }));
  return made.map((p) => p.id);
};

/** The number of kept counts of a user's lists. */
const keptFor = async (who: TestUser) =>
  Number(
    (await h.db.query("SELECT count(*) FROM list_counts WHERE user_id = $1", [who.user.id])).rows[0].count,
  );

it("keeps a count: a change made behind the triggers' back is not counted until a real change", async () => {
  const tag = unique("kc");
  const group = await h.newGroup(owner, { visibility: "public" });
  await projectsIn(group.id, tag, "public", 2);
  const viewer = await h.newUser();
  expect(await totalOf(viewer, tag)).toBe(2);
  expect(await keptFor(viewer)).toBe(1);
  const db = await h.db.connect();
  try {
    await db.query("SET session_replication_role = replica");
    await db.query(
      `INSERT INTO projects (namespace_id, traversal_ids, name, path, visibility_level, creator_id)
       VALUES ($1, $2, $3, $3, 20, $4)`,
      [group.id, [group.id], unique(`${tag}-hidden`), owner.user.id],
    );
  } finally {
    await db.query("SET session_replication_role = origin");
    db.release();
  }
  expect(await totalOf(viewer, tag)).toBe(2);
  await projectsIn(group.id, tag, "public", 1);
  expect(await totalOf(viewer, tag)).toBe(4);
});

it("drops a count when a project is made, made private, archived or removed", async () => {
  const tag = unique("pc");
  const group = await h.newGroup(owner, { visibility: "public" });
  const [first, second] = await projectsIn(group.id, tag, "public", 2);
  const viewer = await h.newUser();
  expect(await totalOf(viewer, tag)).toBe(2);
  expect(await totalOf(viewer, tag, { archived: false })).toBe(2);
  const [third] = await projectsIn(group.id, tag, "public", 1);
  expect(await totalOf(viewer, tag)).toBe(3);
  await h.rpc.updateProject({
    actor: owner.actor,
    project: { id: third! },
    attributes: { visibility: "private" },
  });
  expect(await totalOf(viewer, tag)).toBe(2);
  await h.rpc.archiveProject({ actor: owner.actor, project: { id: second! } });
  expect(await totalOf(viewer, tag, { archived: false })).toBe(1);
  expect(await totalOf(viewer, tag)).toBe(2);
  await h.db.query("DELETE FROM projects WHERE id = $1", [first]);
  expect(await totalOf(viewer, tag)).toBe(1);
});

it("drops a count when the caller's group membership, a group share or a project share changes", async () => {
  const tag = unique("mc");
  const open = await h.newGroup(owner, { visibility: "public" });
  await projectsIn(open.id, tag, "public", 2);
  const closed = await h.newGroup(owner, { visibility: "private" });
  const [privateOne] = await projectsIn(closed.id, tag, "private", 2);
  const viewer = await h.newUser();
  expect(await totalOf(viewer, tag)).toBe(2);
  await h.addMember(closed.id, viewer, 10);
  expect(await totalOf(viewer, tag)).toBe(4);
  expect(await totalOf(viewer, tag, { minAccessLevel: 30 })).toBe(0);
  expect(await totalOf(viewer, tag, { membership: true })).toBe(2);
  await h.db.query("UPDATE group_members SET access_level = 30 WHERE namespace_id = $1 AND user_id = $2", [
    closed.id,
    viewer.user.id,
  ]);
  expect(await totalOf(viewer, tag, { minAccessLevel: 30 })).toBe(2);
  await h.membersRpc.removeMember({ actor: h.admin, group: { id: closed.id }, userId: viewer.user.id });
  await h.copied(
    "the membership's removal",
    "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM group_members WHERE namespace_id = $1 AND user_id = $2)",
    [closed.id, viewer.user.id],
  );
  expect(await totalOf(viewer, tag)).toBe(2);
  // Through a share of the private group with a group the viewer is in, then of one project.
  const team = await h.newGroup(owner);
  await h.addMember(team.id, viewer, 30);
  expect(await totalOf(viewer, tag)).toBe(2);
  await h.shareGroup(closed.id, team.id, 20);
  expect(await totalOf(viewer, tag)).toBe(4);
  await h.sharingRpc.unshareGroup({ actor: h.admin, group: { id: closed.id }, sharedWithGroupId: team.id });
  await h.copied(
    "the share's removal",
    "SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM group_group_links WHERE shared_group_id = $1)",
    [closed.id],
  );
  expect(await totalOf(viewer, tag)).toBe(2);
  await h.db.query(
    "INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, $2, 20)",
    [privateOne, team.id],
  );
  expect(await totalOf(viewer, tag)).toBe(3);
  await h.db.query("DELETE FROM project_group_links WHERE project_id = $1", [privateOne]);
  expect(await totalOf(viewer, tag)).toBe(2);
  // A direct project membership, and its expiry.
  await h.db.query("INSERT INTO project_members (project_id, user_id, access_level) VALUES ($1, $2, 30)", [
    privateOne,
    viewer.user.id,
  ]);
  expect(await totalOf(viewer, tag)).toBe(3);
  await h.db.query("UPDATE project_members SET expires_at = '2000-01-01' WHERE user_id = $1", [
    viewer.user.id,
  ]);
  expect(await totalOf(viewer, tag)).toBe(2);
});

it("drops a count when the caller stars or unstars, and not another caller's", async () => {
  const tag = unique("sc");
  const group = await h.newGroup(owner, { visibility: "public" });
  const [a, b, c] = await projectsIn(group.id, tag, "public", 3);
  const viewer = await h.newUser();
  const other = await h.newUser();
  for (const id of [a!, b!]) await h.rpc.starProject({ actor: viewer.actor, project: { id } });
  expect(await totalOf(viewer, tag, { starred: true })).toBe(2);
  expect(await totalOf(other, tag)).toBe(3);
  await h.rpc.starProject({ actor: viewer.actor, project: { id: c! } });
  expect(await totalOf(viewer, tag, { starred: true })).toBe(3);
  await h.rpc.unstarProject({ actor: viewer.actor, project: { id: a! } });
  await h.rpc.unstarProject({ actor: viewer.actor, project: { id: b! } });
  expect(await totalOf(viewer, tag, { starred: true })).toBe(1);
  // The other caller's count was kept under generations the stars did not move.
  const generations = await h.db.query(
    "SELECT c.user_generation, g.generation FROM list_counts c JOIN list_count_generations g ON g.scope = c.user_id WHERE c.user_id = $1",
    [other.user.id],
  );
  expect(generations.rows.every((r) => r.user_generation === r.generation)).toBe(true);
});

it("drops a count when a group is marked for deletion or the caller is blocked", async () => {
  const tag = unique("gc");
  const open = await h.newGroup(owner, { visibility: "public" });
  await projectsIn(open.id, tag, "public", 2);
  const closed = await h.newGroup(owner, { visibility: "private" });
  await projectsIn(closed.id, tag, "private", 2);
  const viewer = await h.newUser();
  await h.addMember(closed.id, viewer, 20);
  expect(await totalOf(viewer, tag)).toBe(4);
  await h.db.query("UPDATE users SET state = 'blocked' WHERE id = $1", [viewer.user.id]);
  expect(await totalOf(viewer, tag)).toBe(2);
  await h.db.query("UPDATE users SET state = 'active' WHERE id = $1", [viewer.user.id]);
  expect(await totalOf(viewer, tag)).toBe(4);
  await h.db.query("UPDATE namespaces SET marked_for_deletion_on = current_date WHERE id = $1", [open.id]);
  expect(await totalOf(viewer, tag)).toBe(2);
  await h.db.query("UPDATE namespaces SET marked_for_deletion_on = NULL WHERE id = $1", [open.id]);
  expect(await totalOf(viewer, tag)).toBe(4);
});

it("makes the list-count bumps at commit: a project write holds no generation's row while it runs (migration 0012)", async () => {
  // Before 0012 the second writer waited for the first one's commit: every project write queued behind it.
  expect(await observeListCountBumps(h.db)).toEqual({
    secondWriterWaited: false,
    // Since migration 0013 a writer bumps its connection's shard: another's commit does not queue behind it.
    secondCommitWaited: false,
    committedTwice: [1, 1],
    rolledBack: [0, 0],
    savepointRolledBack: [0, 0],
    savepointRolledBackThenBumped: [1, 1],
  });
});
