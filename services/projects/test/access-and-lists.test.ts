import {
  ANONYMOUS,
  failed,
  failure,
  startHarness,
  status,
  unique,
  waitFor,
  type Harness,
  type TestUser,
} from "./support";
import { changeUserState, UserStateAction } from "../../auth/test/support";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const ids = (res: { projects: { id: number }[] }) => res.projects.map((p) => p.id);

describe("project access: one definition, every path to it", () => {
  let owner: TestUser;
  let top: Awaited<ReturnType<Harness["newGroup"]>>;
  let sub: Awaited<ReturnType<Harness["newGroup"]>>;
  let project: Awaited<ReturnType<Harness["newProject"]>>;
  beforeAll(async () => {
    owner = await h.newUser();
    top = await h.newGroup(owner);
    sub = await h.newGroup(owner, {}, top.id);
    project = await h.newProject(owner, sub.id);
  });
  const accessOf = async (u: TestUser) =>
    (await h.rpc.getProject({ actor: u.actor, project: { id: project.id } })).accessLevel;

  it("inherits from the group and its ancestors", async () => {
    const direct = await h.newUser();
    const inherited = await h.newUser();
    await h.addMember(sub.id, direct, 20);
    await h.addMember(top.id, inherited, 40);
    expect(await accessOf(direct)).toBe(20);
    expect(await accessOf(inherited)).toBe(40);
  });

  it("reaches members of a group the project's ancestor is shared with, capped at the share", async () => {
    const other = await h.newGroup(owner);
    const viaShare = await h.newUser();
    await h.addMember(other.id, viaShare, 50);
    await h.shareGroup(top.id, other.id, 30);
    expect(await accessOf(viaShare)).toBe(30);
  });

  it("counts project members and project shares with a group (and that group's ancestors' members)", async () => {
    const member = await h.newUser();
    await h.db.query("INSERT INTO project_members (project_id, user_id, access_level) VALUES ($1, $2, 40)", [
      project.id,
      member.user.id,
    ]);
    expect(await accessOf(member)).toBe(40);
    const invitedTop = await h.newGroup(owner);
    const invited = await h.newGroup(owner, {}, invitedTop.id);
    const viaLink = await h.newUser();
    await h.addMember(invitedTop.id, viaLink, 50);
    await h.db.query(
      "INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, $2, 20)",
      [project.id, invited.id],
    );
    expect(await accessOf(viaLink)).toBe(20);
  });

  it("ignores expired memberships and blocked users", async () => {
    const expired = await h.newUser();
    await h.addMember(sub.id, expired, 30);
    await h.db.query("UPDATE group_members SET expires_at = '2000-01-01' WHERE user_id = $1", [
      expired.user.id,
    ]);
    expect(await failure(h.rpc.getProject({ actor: expired.actor, project: { id: project.id } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Project" }),
    );
    const blocked = await h.newUser();
    await h.addMember(sub.id, blocked, 30);
    await changeUserState(h.authService, h.admin, blocked.user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    await waitFor("the block to reach projects", async () => {
      const { rows } = await h.db.query("SELECT state FROM users WHERE id = $1", [blocked.user.id]);
      return rows[0]?.state === "blocked";
    });
    expect(await failure(h.rpc.getProject({ actor: blocked.actor, project: { id: project.id } }))).toEqual(
      failed(status.NOT_FOUND, { resource: "Project" }),
    );
  });
  it("gives lists the level single reads give, on every path (membership, min_access_level, owned)", async () => {
    const inherited = await h.newUser();
    await h.addMember(top.id, inherited, 40);
    const other = await h.newGroup(owner);
    const viaShare = await h.newUser();
    await h.addMember(other.id, viaShare, 50);
    await h.shareGroup(top.id, other.id, 30);
    const member = await h.newUser();
    await h.db.query("INSERT INTO project_members (project_id, user_id, access_level) VALUES ($1, $2, 20)", [
      project.id,
      member.user.id,
    ]);
    const invitedTop = await h.newGroup(owner);
    const invited = await h.newGroup(owner, {}, invitedTop.id);
    const viaLink = await h.newUser();
    await h.addMember(invitedTop.id, viaLink, 50);
    await h.db.query(
      "INSERT INTO project_group_links (project_id, group_id, group_access) VALUES ($1, $2, 10)",
      [project.id, invited.id],
    );
    const lists = async (u: TestUser, extra: object) =>
      ids(await h.rpc.listProjects({ actor: u.actor, search: project.path, ...extra })).includes(project.id);
    for (const [u, level] of [
      [owner, 50],
      [inherited, 40],
      [viaShare, 30],
      [member, 20],
      [viaLink, 10],
    ] as const) {
      expect(await accessOf(u)).toBe(level);
      expect(await lists(u, {})).toBe(true);
      expect(await lists(u, { membership: true })).toBe(true);
      expect(await lists(u, { minAccessLevel: level })).toBe(true);
      if (level < 50) expect(await lists(u, { minAccessLevel: level + 10 })).toBe(false);
      expect(await lists(u, { owned: true })).toBe(level === 50);
    }
    const stranger = await h.newUser();
    expect(await lists(stranger, {})).toBe(false);
    expect(await lists(stranger, { membership: true })).toBe(false);
  });

  it("lists a personal project to its owner at Owner, and to no one else", async () => {
    const me = await h.newUser();
    const personal = await h.newProject(me, undefined, { visibility: "private" });
    const listed = await h.rpc.listProjects({ actor: me.actor, owned: true, search: personal.path });
    expect(ids(listed)).toEqual([personal.id]);
    expect(
      ids(await h.rpc.listProjects({ actor: me.actor, minAccessLevel: 50, search: personal.path })),
    ).toEqual([personal.id]);
    const stranger = await h.newUser();
    expect(ids(await h.rpc.listProjects({ actor: stranger.actor, search: personal.path }))).toEqual([]);
  });
});

describe("ListProjects", () => {
  it("shows each caller what they may see, with the membership filters", async () => {
    const owner = await h.newUser();
    const member = await h.newUser();
    const stranger = await h.newUser();
    const group = await h.newGroup(owner, { visibility: "public" });
    const tag = unique("lst");
    const priv = await h.newProject(owner, group.id, {
      name: `${tag} priv`,
      path: `${tag}-priv`,
      visibility: "private",
    });
    const internal = await h.newProject(owner, group.id, {
      name: `${tag} int`,
      path: `${tag}-int`,
      visibility: "internal",
    });
    const pub = await h.newProject(owner, group.id, {
      name: `${tag} pub`,
      path: `${tag}-pub`,
      visibility: "public",
    });
    await h.addMember(group.id, member, 20);
    const list = (actor: typeof ANONYMOUS, extra: object = {}) =>
      h.rpc.listProjects({ actor, search: tag, ...extra }).then(ids);
    // Newest first by default.
    expect(await list(ANONYMOUS)).toEqual([pub.id]);
    expect(await list(stranger.actor)).toEqual([pub.id, internal.id]);
    expect(await list(member.actor)).toEqual([pub.id, internal.id, priv.id]);
    expect(await list(h.admin)).toEqual([pub.id, internal.id, priv.id]);
    expect(await list(stranger.actor, { membership: true })).toEqual([]);
    expect(await list(member.actor, { membership: true, orderBy: "id", sort: "asc" })).toEqual([
      priv.id,
      internal.id,
      pub.id,
    ]);
    expect(await list(member.actor, { minAccessLevel: 30 })).toEqual([]);
    expect(await list(owner.actor, { owned: true })).toEqual([pub.id, internal.id, priv.id]);
    expect(await list(member.actor, { owned: true })).toEqual([]);
    expect(await list(member.actor, { visibility: "internal" })).toEqual([internal.id]);
  });

  it("filters on stars and archived state, and orders by star_count and name", async () => {
    const owner = await h.newUser();
    const tag = unique("st");
    const a = await h.newProject(owner, 0, { name: `${tag} b`, path: `${tag}-a` });
    const b = await h.newProject(owner, 0, { name: `${tag} a`, path: `${tag}-b` });
    const star = await h.rpc.starProject({ actor: owner.actor, project: { id: a.id } });
    expect(star).toMatchObject({ changed: true, project: { starCount: 1, starred: true } });
    expect((await h.rpc.starProject({ actor: owner.actor, project: { id: a.id } })).changed).toBe(false);
    await h.rpc.archiveProject({ actor: owner.actor, project: { id: b.id } });
    const list = (extra: object) =>
      h.rpc.listProjects({ actor: owner.actor, search: tag, ...extra }).then(ids);
    expect(await list({ starred: true })).toEqual([a.id]);
    expect(await list({ archived: true })).toEqual([b.id]);
    expect(await list({ archived: false })).toEqual([a.id]);
    expect(await list({ orderBy: "star_count" })).toEqual([a.id, b.id]);
    expect(await list({ orderBy: "name", sort: "asc" })).toEqual([b.id, a.id]);
    const unstar = await h.rpc.unstarProject({ actor: owner.actor, project: { id: a.id } });
    expect(unstar).toMatchObject({ changed: true, project: { starCount: 0 } });
  });

  it("pages by offset with a total, and by keyset cursor", async () => {
    const owner = await h.newUser();
    const tag = unique("pg");
    const made = [];
    for (let i = 0; i < 5; i++)
      made.push(await h.newProject(owner, 0, { name: `${tag} ${i}`, path: `${tag}-${i}` }));
    const newestFirst = made.map((p) => p.id).reverse();
    const page2 = await h.rpc.listProjects({
      actor: owner.actor,
      search: tag,
      page: { page: 2, perPage: 2 },
    });
    expect(ids(page2)).toEqual(newestFirst.slice(2, 4));
    expect(page2.page).toMatchObject({ page: 2, perPage: 2, total: 5, totalCapped: false });
    const seen: number[] = [];
    let cursor = "";
    for (;;) {
      const res = await h.rpc.listProjects({
        actor: owner.actor,
        search: tag,
        page: { perPage: 2, keyset: true, cursor },
      });
      seen.push(...ids(res));
      cursor = res.page!.nextCursor;
      if (!cursor) break;
    }
    expect(seen).toEqual(newestFirst);
    expect(
      await failure(
        h.rpc.listProjects({ actor: owner.actor, page: { perPage: 2, keyset: true, cursor: "bad" } }),
      ),
    ).toEqual(failed(status.INVALID_ARGUMENT, { publicMessage: "cursor is invalid" }));
  });

  it("lists one user's personal projects (GET /users/:id/projects), 404 for an unknown user", async () => {
    const alice = await h.newUser();
    const other = await h.newUser();
    const mine = await h.newProject(alice, 0, { visibility: "public" });
    const hidden = await h.newProject(alice, 0, { visibility: "private" });
    expect(ids(await h.rpc.listProjects({ actor: other.actor, userId: alice.user.id }))).toEqual([mine.id]);
    expect(ids(await h.rpc.listProjects({ actor: alice.actor, username: alice.user.username }))).toEqual([
      hidden.id,
      mine.id,
    ]);
    expect(await failure(h.rpc.listProjects({ actor: other.actor, userId: 987654321 }))).toEqual(
      failed(status.NOT_FOUND, { resource: "User" }),
    );
  });
});
