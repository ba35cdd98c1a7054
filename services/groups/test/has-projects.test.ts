/**
 * GitLab's has_projects (group_policy.rb; reference §2.4, §4.1): a user who sees a project inside a
 * group or its subgroups through the project itself (a project membership, or a share of the
 * project with a group they are in) may read the group and its ancestors, finds them in GET
 * /groups, and gets nothing more: 403 on the member lists of a private group where their level is
 * "no access", 403 on writes. The memberships and shares reach the groups service as the projects
 * service's events (project-events.ts), through its real durable consumers.
 */
import { groups } from "@canopy/protos";
import { actorOf, list } from "./lists-support";
import { addAs, ALL, DIRECT, membersRpc, type MembersRpc } from "./members-support";
import {
  addProjectMember,
  createProject,
  moveProject,
  removeProject,
  removeProjectMember,
  shareProject,
  unshareProject,
  updateProjectMember,
} from "./project-events";
import { failed, failure, startHarness, status, unique, type Harness, type TestUser } from "./support";

let h: Harness;
let members: MembersRpc;
beforeAll(async () => {
  h = await startHarness();
  members = membersRpc(h);
});
afterAll(() => h.stop());

const get = (who: TestUser, id: number) => h.rpc.getGroup({ actor: who.actor, group: { id } });
const notFound = failed(status.NOT_FOUND, { resource: "Group" });
const sortedIds = (res: groups.ListGroupsResponse) => res.groups.map((g) => g.id).sort((a, b) => a - b);
const sorted = (...ids: number[]) => [...ids].sort((a, b) => a - b);

/** owner's private tree: root / sub / leaf, root / sibling, a project in sub. */
async function privateTree() {
  const owner = await h.newUser();
  const tag = unique("hp");
  const root = await h.newGroup(owner, { path: `${tag}-root` });
  const sub = await h.newGroup(owner, { path: `${tag}-sub` }, root.id);
  const leaf = await h.newGroup(owner, { path: `${tag}-leaf` }, sub.id);
  const sibling = await h.newGroup(owner, { path: `${tag}-sibling` }, root.id);
  const project = await createProject(h, sub.id);
  return { owner, tag, root, sub, leaf, sibling, project };
}

describe("a member of one project inside a private group", () => {
  it("reads the project's group and its ancestors, and nothing beside or below them", async () => {
    const t = await privateTree();
    const user = await h.newUser();
    // Before: a stranger to the whole tree.
    expect(await failure(get(user, t.root.id))).toMatchObject(notFound);
    expect((await list(h, user)).groups).toEqual([]);

    await addProjectMember(h, t.project, user.user.id, 30);
    for (const g of [t.root, t.sub]) {
      const detail = await get(user, g.id);
      expect(detail.group!.id).toBe(g.id);
      // Reading gives no level: no runners token, no rights.
      expect(detail.accessLevel).toBe(0);
      expect(detail.runnersToken).toBeFalsy();
    }
    for (const g of [t.leaf, t.sibling]) expect(await failure(get(user, g.id))).toMatchObject(notFound);

    // GET /groups: the group and its ancestors, with and without all_available, exact X-Total.
    for (const allAvailable of [false, true]) {
      const res = await list(h, user, { allAvailable, search: t.tag });
      expect(sortedIds(res)).toEqual(sorted(t.root.id, t.sub.id));
      expect(res.page!.total).toBe(2);
    }
    const byPage = await list(h, user, { search: t.tag, page: { page: 1, perPage: 1 } });
    expect(byPage.page!.total).toBe(2);
    // Subgroups and descendants of the root: only the way down to the project.
    const parent = { id: t.root.id, fullPath: "" };
    for (const scope of [groups.GroupScope.GROUP_SCOPE_SUBGROUPS, groups.GroupScope.GROUP_SCOPE_DESCENDANTS])
      expect(sortedIds(await list(h, user, { scope, parent }))).toEqual([t.sub.id]);
    // owned and min_access_level count direct group memberships only.
    expect((await list(h, user, { owned: true })).groups).toEqual([]);
    expect((await list(h, user, { minAccessLevel: 10 })).groups).toEqual([]);
  });

  it("gets 403 on the member lists of the private groups and on writes", async () => {
    const t = await privateTree();
    const user = await h.newUser();
    await addProjectMember(h, t.project, user.user.id, 50);
    for (const g of [t.root, t.sub])
      for (const scope of [DIRECT, ALL])
        expect(
          await failure(members.listMembers({ actor: user.actor, group: { id: g.id }, scope })),
        ).toMatchObject(failed(status.PERMISSION_DENIED));
    expect(
      await failure(
        h.rpc.updateGroup({ actor: user.actor, group: { id: t.sub.id }, attributes: { description: "x" } }),
      ),
    ).toMatchObject(failed(status.PERMISSION_DENIED));
    expect(
      await failure(
        h.rpc.createGroup({
          actor: user.actor,
          attributes: { name: "n", path: unique("n") },
          parentId: t.sub.id,
        }),
      ),
    ).toMatchObject(failed(status.PERMISSION_DENIED));
  });

  it("reads an internal or public group's members as anyone may (only private groups refuse)", async () => {
    const owner = await h.newUser();
    const user = await h.newUser();
    const root = await h.newGroup(owner, { visibility: "internal" });
    const sub = await h.newGroup(owner, { visibility: "private" }, root.id);
    const project = await createProject(h, sub.id);
    await addProjectMember(h, project, user.user.id);
    const res = await members.listMembers({ actor: user.actor, group: { id: root.id }, scope: DIRECT });
    expect(res.members.map((m) => m.user!.id)).toEqual([owner.user.id]);
    expect(await failure(members.listMembers({ actor: user.actor, group: { id: sub.id } }))).toMatchObject(
      failed(status.PERMISSION_DENIED),
    );
  });

  it("reads an internal group as an external user, who otherwise sees public groups only", async () => {
    const owner = await h.newUser();
    const external = await h.newUser({ external: true });
    const tag = unique("hpx");
    const root = await h.newGroup(owner, { path: `${tag}-root`, visibility: "internal" });
    const project = await createProject(h, root.id);
    expect(await failure(get(external, root.id))).toMatchObject(notFound);
    await addProjectMember(h, project, external.user.id, 10);
    expect((await get(external, root.id)).group!.id).toBe(root.id);
    expect(sortedIds(await list(h, external, { search: tag }))).toEqual([root.id]);
    // Not private: its members are anyone's who may read it.
    const res = await members.listMembers({ actor: external.actor, group: { id: root.id } });
    expect(res.members.map((m) => m.user!.id)).toEqual([owner.user.id]);
  });

  it("loses the group when the membership expires, goes, or the user is blocked", async () => {
    const t = await privateTree();
    const user = await h.newUser();
    await addProjectMember(h, t.project, user.user.id, 30, "2999-01-01");
    await get(user, t.root.id);
    const today = new Date().toISOString().slice(0, 10);
    await updateProjectMember(h, t.project, user.user.id, 30, today);
    expect(await failure(get(user, t.root.id))).toMatchObject(notFound);
    expect((await list(h, user, { search: t.tag })).page!.total).toBe(0);

    await updateProjectMember(h, t.project, user.user.id, 30, "");
    await get(user, t.root.id);
    await h.db.query("UPDATE users SET state = 'blocked' WHERE id = $1", [user.user.id]);
    expect(await failure(get(user, t.root.id))).toMatchObject(notFound);
    expect((await list(h, user, { search: t.tag })).page!.total).toBe(0);
    await h.db.query("UPDATE users SET state = 'active' WHERE id = $1", [user.user.id]);
    expect((await list(h, user, { search: t.tag })).page!.total).toBe(2);

    await removeProjectMember(h, t.project, user.user.id);
    expect(await failure(get(user, t.root.id))).toMatchObject(notFound);
    expect((await list(h, user, { search: t.tag })).page!.total).toBe(0);
  });

  it("follows the project when it moves or goes", async () => {
    const t = await privateTree();
    const user = await h.newUser();
    await addProjectMember(h, t.project, user.user.id);
    expect((await list(h, user, { search: t.tag })).page!.total).toBe(2);
    await moveProject(h, t.project, t.leaf.id);
    expect(sortedIds(await list(h, user, { search: t.tag }))).toEqual(sorted(t.root.id, t.sub.id, t.leaf.id));
    await get(user, t.leaf.id);
    await moveProject(h, t.project, t.sibling.id);
    expect(sortedIds(await list(h, user, { search: t.tag }))).toEqual(sorted(t.root.id, t.sibling.id));
    expect(await failure(get(user, t.sub.id))).toMatchObject(notFound);
    await removeProject(h, t.project, t.sibling.id);
    expect((await list(h, user, { search: t.tag })).page!.total).toBe(0);
    expect(await failure(get(user, t.root.id))).toMatchObject(notFound);
    const { rows } = await h.db.query("SELECT 1 FROM project_members WHERE project_id = $1", [t.project]);
    expect(rows).toEqual([]);
  });
});

describe("a member of a group a project inside a private group is shared with", () => {
  it("reads the project's group and its ancestors while the share lasts", async () => {
    const t = await privateTree();
    const other = await h.newUser();
    const user = await h.newUser();
    // The share is with a subgroup; the user is a member of its parent (members_with_parents).
    const team = await h.newGroup(other);
    const squad = await h.newGroup(other, {}, team.id);
    await addAs(members, other, team.id, user, 10);
    expect(await failure(get(user, t.root.id))).toMatchObject(notFound);

    await shareProject(h, t.project, squad.id);
    await get(user, t.root.id);
    await get(user, t.sub.id);
    const res = await list(h, user, { search: t.tag });
    expect(sortedIds(res)).toEqual(sorted(t.root.id, t.sub.id));
    expect(await failure(members.listMembers({ actor: user.actor, group: { id: t.sub.id } }))).toMatchObject(
      failed(status.PERMISSION_DENIED),
    );
    // The owner of the invited group is as much a member: a shared reader too.
    expect((await list(h, other, { search: t.tag })).page!.total).toBe(2);

    await unshareProject(h, t.project, squad.id);
    expect(await failure(get(user, t.root.id))).toMatchObject(notFound);
    expect((await list(h, user, { search: t.tag })).page!.total).toBe(0);

    // An expired share gives nothing.
    const today = new Date().toISOString().slice(0, 10);
    await shareProject(h, t.project, squad.id, today);
    expect(await failure(get(user, t.root.id))).toMatchObject(notFound);
  });

  it("sees the project's group in another group's shared_with_groups", async () => {
    // A group shared with the project's group: its detail's shared_with_groups shows the project's
    // group to a project member (read_group), as it shows any group the caller may read.
    const t = await privateTree();
    const other = await h.newUser();
    const user = await h.newUser();
    const host = await h.newGroup(other, { visibility: "public" });
    await h.db.query(
      "INSERT INTO group_links (shared_group_id, shared_with_group_id, group_access) VALUES ($1, $2, 30)",
      [host.id, t.sub.id],
    );
    const before = await h.rpc.getGroup({ actor: actorOf(user), group: { id: host.id } });
    expect(before.sharedWithGroups).toEqual([]);
    await addProjectMember(h, t.project, user.user.id);
    const after = await h.rpc.getGroup({ actor: actorOf(user), group: { id: host.id } });
    expect(after.sharedWithGroups.map((s) => s.groupId)).toEqual([t.sub.id]);
  });
});
