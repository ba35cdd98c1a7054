/**
 * The kept counts of GET /groups (migration 0008) stay exact when who sees a project through the
 * project changes (migration 0013's triggers): a project membership added, expiring, back; a share
 * of the project with a group; a project appearing after its membership (replicas apply events in
 * any order), moving, going. Each count is read with a page of one over at least two groups, so it
 * comes from the kept count whenever one is valid.
 */
import { groups, PROJECTS_EVENTS } from "@canopy/protos";
import { addAs, membersRpc } from "./members-support";
import {
  addProjectMember,
  createProject,
  moveProject,
  projectId,
  publish,
  removeProject,
  shareProject,
  snapshotOf,
  unshareProject,
  updateProjectMember,
} from "./project-events";
import { startHarness, unique, type Harness, type TestUser } from "./support";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

/** X-Total of the user's GET /groups narrowed to the test's tag, one group a page. */
async function total(who: TestUser, tag: string) {
  const res = await h.rpc.listGroups({
    scope: groups.GroupScope.GROUP_SCOPE_ALL,
    search: tag,
    actor: who.actor,
    page: { page: 1, perPage: 1, keyset: false, cursor: "" },
  });
  return res.page!.total;
}

const keptFor = async (userId: number) =>
  Number((await h.db.query("SELECT count(*) AS n FROM list_counts WHERE user_id = $1", [userId])).rows[0].n);

/** A private tree root / sub / leaf of someone else, and a user owning two groups of their own. */
async function setting() {
  const tag = unique("hpc");
  const owner = await h.newUser();
  const root = await h.newGroup(owner, { path: `${tag}-root` });
  const sub = await h.newGroup(owner, { path: `${tag}-sub` }, root.id);
  const leaf = await h.newGroup(owner, { path: `${tag}-leaf` }, sub.id);
  const user = await h.newUser();
  await h.newGroup(user, { path: `${tag}-own1` });
  await h.newGroup(user, { path: `${tag}-own2` });
  expect(await total(user, tag)).toBe(2);
  expect(await keptFor(user.user.id)).toBeGreaterThan(0);
  expect(await total(user, tag)).toBe(2);
  return { tag, owner, root, sub, leaf, user };
}

describe("kept counts follow the copies of project memberships and shares", () => {
  test("membership added, expiring, back; project moved and removed", async () => {
    const s = await setting();
    const project = await createProject(h, s.sub.id);
    expect(await total(s.user, s.tag)).toBe(2);
    await addProjectMember(h, project, s.user.user.id);
    expect(await total(s.user, s.tag)).toBe(4);
    const today = new Date().toISOString().slice(0, 10);
    await updateProjectMember(h, project, s.user.user.id, 30, today);
    expect(await total(s.user, s.tag)).toBe(2);
    await updateProjectMember(h, project, s.user.user.id, 30, "");
    expect(await total(s.user, s.tag)).toBe(4);
    await moveProject(h, project, s.leaf.id);
    expect(await total(s.user, s.tag)).toBe(5);
    await moveProject(h, project, s.root.id);
    expect(await total(s.user, s.tag)).toBe(3);
    await removeProject(h, project, s.root.id);
    expect(await total(s.user, s.tag)).toBe(2);
  });

  test("a membership that arrives before its project counts once the project does", async () => {
    const s = await setting();
    const id = projectId();
    await addProjectMember(h, id, s.user.user.id);
    expect(await total(s.user, s.tag)).toBe(2);
    await publish(h, PROJECTS_EVENTS.projectCreated, { project: snapshotOf(id, s.leaf.id) });
    expect(await total(s.user, s.tag)).toBe(5);
  });

  test("a share of the project with a group the user is in, and its removal", async () => {
    const s = await setting();
    const project = await createProject(h, s.sub.id);
    const team = await h.newGroup(s.owner, { path: `${unique("team")}` });
    await addAs(membersRpc(h), s.owner, team.id, s.user, 20);
    // The team is the user's third group, but not under the tag.
    expect(await total(s.user, s.tag)).toBe(2);
    await shareProject(h, project, team.id);
    expect(await total(s.user, s.tag)).toBe(4);
    await unshareProject(h, project, team.id);
    expect(await total(s.user, s.tag)).toBe(2);
  });
});
