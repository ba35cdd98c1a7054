/**
 * The permission matrix of the projects endpoints: every kind of caller (anonymous, a stranger, an
 * external user, each access level as a direct project member, a Developer of the project's group,
 * a member of a group the project's group is shared with, a member of a group the project is
 * shared with, a blocked user, an administrator) × public / internal / private projects in public /
 * internal / private groups. Each cell asserts the status of every read and of write probes that
 * change nothing (refused after the permission check), and that no list or count holds a project
 * the caller may not see: GET /projects, the group project lists (with and without subgroups and
 * shared projects), the shared list, the group detail's projects and GET /users/:id/projects.
 */
import { createAdmin, createToken, startStack, unique, waitFor, type Stack } from "./support";
import { addGroupMember, knownUser, newGroup, type Json } from "./project-members-support";

let stack: Stack;
afterAll(() => stack?.stop());

type Visibility = "public" | "internal" | "private";
const RANK: Record<Visibility, number> = { private: 0, internal: 10, public: 20 };

interface Cell {
  id: number;
  visibility: Visibility;
  groupId: number;
}

interface Caller {
  name: string;
  token?: string;
  userId?: number;
  /** The caller's access to a project of the world (0 none). */
  access: (p: Cell) => number;
  admin?: boolean;
  external?: boolean;
  blocked?: boolean;
}

const world: {
  cells: Cell[];
  marker: string;
  callers: Caller[];
  memberId: number;
  /** The groups of the world: one per visibility, and an internal subgroup of the public one. */
  groups: { id: number; visibility: Visibility; parentId?: number }[];
  /** The group every project of the world is shared with. */
  projectShareId: number;
  /** The owner's personal projects (searched by their own marker). */
  ownerId: number;
  personal: Cell[];
  personalMarker: string;
} = {
  cells: [],
  marker: "",
  callers: [],
  memberId: 0,
  groups: [],
  projectShareId: 0,
  ownerId: 0,
  personal: [],
  personalMarker: "",
};

beforeAll(async () => {
  stack = await startStack();
  const owner = await knownUser(stack);
  const admin = await createAdmin(stack);
  const adminToken = (await createToken(stack, admin.id, ["api"])).token;
  world.marker = unique("mx");
  const groups: Record<Visibility, { id: number }> = {
    public: await newGroup(stack, owner.secret, { visibility: "public" }),
    internal: await newGroup(stack, owner.secret, { visibility: "internal" }),
    private: await newGroup(stack, owner.secret, { visibility: "private" }),
  };
  const sub = await newGroup(stack, owner.secret, { visibility: "internal", parent_id: groups.public.id });
  world.groups = [
    ...(Object.keys(groups) as Visibility[]).map((v) => ({ id: groups[v].id, visibility: v })),
    { id: sub.id, visibility: "internal", parentId: groups.public.id },
  ];
  world.ownerId = owner.user.id;
  for (const g of world.groups)
    for (const pv of ["public", "internal", "private"] as Visibility[]) {
      if (RANK[pv] > RANK[g.visibility]) continue; // GitLab refuses a project more visible than its group
      const res = await stack.gw.post("/api/v4/projects", {
        token: owner.secret,
        json: { name: `${world.marker}-${g.id}-${pv}`, namespace_id: g.id, visibility: pv },
      });
      if (res.status !== 201) throw new Error(`project: ${res.status} ${res.text}`);
      world.cells.push({ id: (res.body as Json).id as number, visibility: pv, groupId: g.id });
    }
  world.personalMarker = unique("mp");
  for (const pv of ["public", "internal", "private"] as Visibility[]) {
    const res = await stack.gw.post("/api/v4/projects", {
      token: owner.secret,
      json: { name: `${world.personalMarker}-${pv}`, visibility: pv },
    });
    if (res.status !== 201) throw new Error(`personal project: ${res.status} ${res.text}`);
    world.personal.push({ id: (res.body as Json).id as number, visibility: pv, groupId: 0 });
  }

  const direct = [];
  for (const level of [10, 20, 30, 40, 50]) direct.push({ level, user: await knownUser(stack) });
  const inherited = await knownUser(stack);
  const viaGroupShare = await knownUser(stack);
  const viaProjectShare = await knownUser(stack);
  const blocked = await knownUser(stack);
  const stranger = await knownUser(stack);
  const external = await knownUser(stack, { external: true });
  world.memberId = direct[0]!.user.user.id;

  const groupShare = await newGroup(stack, owner.secret, { visibility: "private" });
  const projectShare = await newGroup(stack, owner.secret, { visibility: "private" });
  world.projectShareId = projectShare.id;
  await addGroupMember(stack, owner.secret, groupShare.id, viaGroupShare.user.id, 40);
  await addGroupMember(stack, owner.secret, projectShare.id, viaProjectShare.user.id, 40);
  for (const g of Object.values(groups)) {
    await addGroupMember(stack, owner.secret, g.id, inherited.user.id, 30);
    const shared = await stack.gw.post(`/api/v4/groups/${g.id}/share`, {
      token: owner.secret,
      json: { group_id: groupShare.id, group_access: 20 },
    });
    if (shared.status !== 201) throw new Error(`group share: ${shared.status} ${shared.text}`);
  }
  await waitFor(
    "the group shares to reach projects",
    async () =>
      Number(
        (
          await stack.db.query(
            "SELECT count(*) FROM projects.group_group_links WHERE shared_with_group_id = $1",
            [groupShare.id],
          )
        ).rows[0].count,
      ) === 3,
    15_000,
  );
  for (const cell of world.cells) {
    for (const { level, user } of [...direct, { level: 30, user: blocked }]) {
      const res = await stack.gw.post(`/api/v4/projects/${cell.id}/members`, {
        token: owner.secret,
        json: { user_id: user.user.id, access_level: level },
      });
      if (res.status !== 201) throw new Error(`member: ${res.status} ${res.text}`);
    }
    const res = await stack.gw.post(`/api/v4/projects/${cell.id}/share`, {
      token: owner.secret,
      json: { group_id: projectShare.id, group_access: 30 },
    });
    if (res.status !== 201) throw new Error(`project share: ${res.status} ${res.text}`);
  }
  const block = await stack.gw.post(`/api/v4/users/${blocked.user.id}/block`, { token: adminToken });
  if (block.status !== 201) throw new Error(`block: ${block.status}`);

  const none = () => 0;
  world.callers = [
    { name: "anonymous", access: none },
    { name: "stranger", token: stranger.secret, userId: stranger.user.id, access: none },
    { name: "external", token: external.secret, userId: external.user.id, access: none, external: true },
    ...direct.map(({ level, user }) => ({
      name: `direct ${level}`,
      token: user.secret,
      userId: user.user.id,
      access: () => level,
    })),
    { name: "group Developer", token: inherited.secret, userId: inherited.user.id, access: () => 30 },
    { name: "via group share", token: viaGroupShare.secret, userId: viaGroupShare.user.id, access: () => 20 },
    {
      name: "via project share",
      token: viaProjectShare.secret,
      userId: viaProjectShare.user.id,
      access: () => 30,
    },
    { name: "blocked", token: blocked.secret, userId: blocked.user.id, access: none, blocked: true },
    { name: "admin", token: adminToken, userId: admin.id, access: () => 50, admin: true },
  ];
}, 120_000);

const canSee = (c: Caller, p: Cell) =>
  Boolean(c.admin) ||
  p.visibility === "public" ||
  (p.visibility === "internal" && Boolean(c.token) && !c.external) ||
  c.access(p) > 0;

describe("the projects permission matrix", () => {
  it("answers every read and write probe as GitLab would, for every caller and every project", async () => {
    const mismatches: string[] = [];
    const check = (what: string, got: number, want: number) => {
      if (got !== want) mismatches.push(`${what}: got ${got}, want ${want}`);
    };
    for (const c of world.callers) {
      const opts = c.token ? { token: c.token } : {};
      for (const p of world.cells) {
        const cell = `${c.name} × ${p.visibility} project ${p.id}`;
        const get = (path: string) => stack.gw.get(path, opts);
        if (c.blocked) {
          check(`${cell} GET`, (await get(`/api/v4/projects/${p.id}`)).status, 403);
          continue;
        }
        const visible = canSee(c, p);
        const access = c.access(p);
        const read = visible ? 200 : 404;
        check(`${cell} GET project`, (await get(`/api/v4/projects/${p.id}`)).status, read);
        const membersRead = c.token ? read : 401;
        check(`${cell} GET members`, (await get(`/api/v4/projects/${p.id}/members`)).status, membersRead);
        check(
          `${cell} GET members/all`,
          (await get(`/api/v4/projects/${p.id}/members/all`)).status,
          membersRead,
        );
        check(
          `${cell} GET member`,
          (await get(`/api/v4/projects/${p.id}/members/${world.memberId}`)).status,
          membersRead,
        );
        check(
          `${cell} GET custom_attributes`,
          (await get(`/api/v4/projects/${p.id}/custom_attributes`)).status,
          c.admin ? 200 : 403,
        );
        // Write probes that are refused after the permission check, so nothing changes.
        const maintainer = c.admin || access >= 40;
        const write = !c.token ? 401 : !visible ? 404 : maintainer ? -1 : 403;
        const addAgain = await stack.gw.post(`/api/v4/projects/${p.id}/members`, {
          ...opts,
          json: { user_id: world.memberId, access_level: 10 },
        });
        check(`${cell} POST members (existing)`, addAgain.status, write === -1 ? 409 : write);
        const shareOwn = await stack.gw.post(`/api/v4/projects/${p.id}/share`, {
          ...opts,
          json: { group_id: p.groupId, group_access: 10 },
        });
        check(`${cell} POST share (own group)`, shareOwn.status, write === -1 ? 409 : write);
        const unshare = await stack.gw.delete(`/api/v4/projects/${p.id}/share/${p.groupId}`, opts);
        check(`${cell} DELETE share (none)`, unshare.status, write === -1 ? 404 : write);
        const update = await stack.gw.put(`/api/v4/projects/${p.id}`, {
          ...opts,
          json: { visibility: "galaxy" },
        });
        check(`${cell} PUT project (bad visibility)`, update.status, !c.token ? 401 : 400);
        if (!(c.admin || access >= 50)) {
          const del = await stack.gw.delete(`/api/v4/projects/${p.id}`, opts);
          check(`${cell} DELETE project`, del.status, !c.token ? 401 : visible ? 403 : 404);
        }
      }
      if (c.blocked) continue;
      // Lists and counts hold exactly the projects of the world the caller may see.
      const expected = world.cells.filter((p) => canSee(c, p)).map((p) => p.id);
      const list = await stack.gw.get(
        `/api/v4/projects?search=${world.marker}&per_page=100&order_by=id&sort=asc`,
        opts,
      );
      const ids = (list.body as Json[]).map((p) => p.id as number);
      if (JSON.stringify(ids) !== JSON.stringify(expected))
        mismatches.push(`${c.name} GET /projects: got ${ids}, want ${expected}`);
      check(`${c.name} GET /projects X-Total`, Number(list.headers.get("x-total")), expected.length);
      if (c.token && !c.admin) {
        const mine = world.cells.filter((p) => c.access(p) > 0).map((p) => p.id);
        const membership = await stack.gw.get(
          `/api/v4/projects?search=${world.marker}&membership=true&per_page=100&order_by=id&sort=asc`,
          opts,
        );
        const got = (membership.body as Json[]).map((p) => p.id as number);
        if (JSON.stringify(got) !== JSON.stringify(mine))
          mismatches.push(`${c.name} GET /projects?membership=true: got ${got}, want ${mine}`);
      }
    }
    expect(mismatches).toEqual([]);
  }, 120_000);

  it("holds no invisible project in the group lists, their counts, the group detail or a user's list", async () => {
    const mismatches: string[] = [];
    const same = (what: string, got: unknown, want: unknown) => {
      if (JSON.stringify(got) !== JSON.stringify(want))
        mismatches.push(`${what}: got ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
    };
    const idsOf = (body: unknown) => (body as Json[]).map((p) => p.id as number);
    const desc = (a: number, b: number) => b - a;
    for (const c of world.callers.filter((x) => !x.blocked)) {
      const opts = c.token ? { token: c.token } : {};
      const get = (path: string) => stack.gw.get(path, opts);
      const seen = (cells: Cell[]) => cells.filter((p) => canSee(c, p)).map((p) => p.id);
      const signedInNonExternal = Boolean(c.token) && !c.external;
      for (const g of [...world.groups, { id: world.projectShareId, visibility: "private" as Visibility }]) {
        const at = `${c.name} × ${g.visibility} group ${g.id}`;
        const detail = await get(`/api/v4/groups/${g.id}`);
        const inside = world.cells.filter(
          (p) => p.groupId === g.id || world.groups.some((s) => s.id === p.groupId && s.parentId === g.id),
        );
        // Public groups are everyone's, internal ones every signed-in non-external user's; a private
        // one is read by its members (the project share group's) and by whoever sees a project
        // inside it (GitLab's has_projects: a project member, a member of a group it is shared with).
        const readable =
          c.admin ||
          g.visibility === "public" ||
          (g.visibility === "internal" && signedInNonExternal) ||
          (g.id === world.projectShareId
            ? c.name === "via project share"
            : inside.some((p) => c.access(p) > 0));
        same(`${at} GET group`, detail.status, readable ? 200 : 404);
        const own = seen(world.cells.filter((p) => p.groupId === g.id));
        const below = seen(inside);
        const shared = g.id === world.projectShareId ? seen(world.cells) : [];
        const lists: [string, number[]][] = [
          ["projects", [...new Set([...own, ...shared])].sort((a, b) => a - b)],
          ["projects?with_shared=false", own],
          ["projects?include_subgroups=true", [...new Set([...below, ...shared])].sort((a, b) => a - b)],
          ["projects?include_subgroups=true&with_shared=false", below],
          [
            "projects?include_subgroups=true&simple=true",
            [...new Set([...below, ...shared])].sort((a, b) => a - b),
          ],
          ["projects/shared", shared],
        ];
        for (const [path, want] of lists) {
          const sep = path.includes("?") ? "&" : "?";
          const res = await get(`/api/v4/groups/${g.id}/${path}${sep}order_by=id&sort=asc&per_page=100`);
          // A group the caller cannot see is 404 for its lists as for its detail.
          same(`${at} GET ${path} status`, res.status, detail.status);
          if (res.status !== 200) continue;
          same(`${at} GET ${path}`, idsOf(res.body), want);
          same(`${at} GET ${path} X-Total`, Number(res.headers.get("x-total")), want.length);
        }
        if (detail.status !== 200) continue;
        const body = detail.body as Json;
        same(`${at} detail projects`, idsOf(body.projects), [...own].sort(desc));
        same(`${at} detail shared_projects`, idsOf(body.shared_projects), [...shared].sort(desc));
      }
      const personal = await get(
        `/api/v4/users/${world.ownerId}/projects?search=${world.personalMarker}&order_by=id&sort=asc`,
      );
      // Nobody but their owner has access to the personal projects: visibility decides.
      const personalSeen = world.personal
        .filter((p) => canSee({ ...c, access: () => 0 }, p))
        .map((p) => p.id);
      same(`${c.name} GET /users/:id/projects`, idsOf(personal.body), personalSeen);
      same(
        `${c.name} GET /users/:id/projects X-Total`,
        Number(personal.headers.get("x-total")),
        personalSeen.length,
      );
    }
    expect(mismatches).toEqual([]);
  }, 120_000);
});
