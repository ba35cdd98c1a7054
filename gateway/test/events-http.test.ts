import type { Deps } from "../../services/projects/src/deps";
import { runExpiredRemovals } from "../../services/projects/src/commands/member-removals";
import {
  createAdmin,
  createToken,
  expectError,
  ISO_TIME,
  startStack,
  UNAUTHORIZED,
  waitFor,
  type Stack,
} from "./support";
import { knownUser, newProject, type Json } from "./project-members-support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const userEvents = (id: number | string, query = "") => `/api/v4/users/${id}/events${query}`;
const projectEvents = (id: number | string, query = "") => `/api/v4/projects/${id}/events${query}`;
/** [action, project, author] of each event, in the order answered. */
const summary = (body: unknown) => (body as Json[]).map((e) => [e.action_name, e.project_id, e.author_id]);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

async function addMember(token: string, projectId: number, userId: number, expiresAt?: string) {
  const res = await stack.gw.post(`/api/v4/projects/${projectId}/members`, {
    token,
    json: { user_id: userId, access_level: 30, ...(expiresAt ? { expires_at: expiresAt } : {}) },
  });
  expect(res.status).toBe(201);
}

describe("events over HTTP", () => {
  it("records created, joined, left and expired with the change, rendered as GitLab's Event", async () => {
    const owner = await knownUser(stack);
    const dev = await knownUser(stack);
    const temp = await knownUser(stack);
    const project = await newProject(stack, owner.secret, { visibility: "private" });
    await addMember(owner.secret, project.id, dev.user.id);
    await addMember(owner.secret, project.id, temp.user.id, day(30));
    const removed = await stack.gw.delete(`/api/v4/projects/${project.id}/members/${dev.user.id}`, {
      token: owner.secret,
    });
    expect(removed.status).toBe(204);
    // The daily removal of memberships past their date (RemoveExpiredMembersWorker).
    await stack.db.query("UPDATE projects.project_members SET expires_at = '2000-01-01' WHERE user_id = $1", [
      temp.user.id,
    ]);
    await runExpiredRemovals(stack.projectsService.deps as Deps);

    const res = await stack.gw.get(projectEvents(project.id), { token: owner.secret });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-total")).toBe("5");
    expect(summary(res.body)).toEqual([
      ["expired", project.id, temp.user.id],
      ["left", project.id, dev.user.id],
      ["joined", project.id, temp.user.id],
      ["joined", project.id, dev.user.id],
      ["created", project.id, owner.user.id],
    ]);
    expect((res.body as Json[])[4]).toEqual({
      id: expect.any(Number),
      project_id: project.id,
      action_name: "created",
      target_id: null,
      target_iid: null,
      target_type: null,
      author_id: owner.user.id,
      target_title: null,
      created_at: ISO_TIME,
      author: {
        id: owner.user.id,
        username: owner.user.username,
        name: expect.any(String),
        state: "active",
        locked: false,
        avatar_url: null,
        web_url: `https://canopy.example.com/${owner.user.username}`,
      },
      imported: false,
      imported_from: "none",
      author_username: owner.user.username,
    });

    // GET /events: the caller's own; a private project they left no longer shows them.
    const own = await stack.gw.get("/api/v4/events", { token: owner.secret });
    expect(summary(own.body)).toEqual([["created", project.id, owner.user.id]]);
    expect((await stack.gw.get("/api/v4/events", { token: dev.secret })).body).toEqual([]);
    // scope=all: everyone's events in the projects the caller is in.
    const all = await stack.gw.get("/api/v4/events?scope=all", { token: owner.secret });
    expect(summary(all.body).filter((e) => e[1] === project.id)).toHaveLength(5);
    expectError(await stack.gw.get("/api/v4/events"), 401, UNAUTHORIZED);

    // Gone with their project.
    await stack.db.query("DELETE FROM projects.projects WHERE id = $1", [project.id]);
    expect(
      (await stack.db.query("SELECT 1 FROM projects.events WHERE project_id = $1", [project.id])).rowCount,
    ).toBe(0);
  });

  it("shows only the events of projects the caller may see, on every list", async () => {
    const owner = await knownUser(stack);
    const member = await knownUser(stack);
    const stranger = await knownUser(stack);
    const admin = await createAdmin(stack);
    const adminToken = (await createToken(stack, admin.id, ["api"])).token;
    const hidden = await newProject(stack, owner.secret, { visibility: "private" });
    const open = await newProject(stack, owner.secret, { visibility: "public" });
    const internal = await newProject(stack, owner.secret, { visibility: "internal" });
    await addMember(owner.secret, hidden.id, member.user.id);
    const projectsOf = async (token: string | undefined, path: string) => {
      const res = await stack.gw.get(path, token ? { token } : {});
      expect(res.status).toBe(200);
      return [...new Set(summary(res.body).map((e) => e[1]))];
    };

    expect(await projectsOf(undefined, userEvents(owner.user.id))).toEqual([open.id]);
    expect(await projectsOf(stranger.secret, userEvents(owner.user.id))).toEqual([internal.id, open.id]);
    expect(await projectsOf(member.secret, userEvents(owner.user.username))).toEqual([
      internal.id,
      open.id,
      hidden.id,
    ]);
    expect(await projectsOf(adminToken, userEvents(owner.user.id))).toEqual([
      internal.id,
      open.id,
      hidden.id,
    ]);
    expect(await projectsOf(stranger.secret, userEvents(member.user.id))).toEqual([]);
    expect(await projectsOf(member.secret, "/api/v4/events")).toEqual([hidden.id]);

    for (const [token, id] of [
      [undefined, hidden.id],
      [stranger.secret, hidden.id],
      [undefined, internal.id],
    ] as const)
      expectError(await stack.gw.get(projectEvents(id), token ? { token } : {}), 404, {
        message: "404 Project Not Found",
      });
    expect(await projectsOf(member.secret, projectEvents(hidden.id))).toEqual([hidden.id]);
    expect(
      await projectsOf(adminToken, projectEvents(hidden.path_with_namespace.replace("/", "%2F"))),
    ).toEqual([hidden.id]);
    expect(await projectsOf(undefined, projectEvents(open.id))).toEqual([open.id]);

    expectError(await stack.gw.get(userEvents(987654321)), 404, { message: "404 User Not Found" });
    expectError(await stack.gw.get(userEvents("no-such-user-here")), 404, { message: "404 User Not Found" });
    expectError(await stack.gw.get(userEvents("99999999999999999999")), 404, {
      message: "404 User Not Found",
    });
  });

  it("drops a deleted user's events with them, and writes none for them after (GitLab deletes an author's events)", async () => {
    const owner = await knownUser(stack);
    const leaver = await knownUser(stack);
    const admin = await createAdmin(stack);
    const adminToken = (await createToken(stack, admin.id, ["api"])).token;
    const project = await newProject(stack, owner.secret, { visibility: "public" });
    await addMember(owner.secret, project.id, leaver.user.id);
    const actions = async () =>
      summary((await stack.gw.get(projectEvents(project.id), { token: owner.secret })).body);
    expect(await actions()).toEqual([
      ["joined", project.id, leaver.user.id],
      ["created", project.id, owner.user.id],
    ]);

    expect((await stack.gw.delete(`/api/v4/users/${leaver.user.id}`, { token: adminToken })).status).toBe(
      204,
    );
    await waitFor(
      "the deletion reached the projects service",
      async () => (await actions()).length === 1,
      30_000,
    );
    expect(await actions()).toEqual([["created", project.id, owner.user.id]]);
    // Nothing of theirs comes back: no `left` for the memberships their deletion removed.
    const { rowCount } = await stack.db.query("SELECT 1 FROM projects.events WHERE author_id = $1", [
      leaver.user.id,
    ]);
    expect(rowCount).toBe(0);
  });

  it("answers [] for a private profile except to themselves and administrators", async () => {
    const shy = await knownUser(stack, { private_profile: true });
    const other = await knownUser(stack);
    const admin = await createAdmin(stack);
    const adminToken = (await createToken(stack, admin.id, ["api"])).token;
    await newProject(stack, shy.secret, { visibility: "public" });
    const count = async (token?: string) => {
      const res = await stack.gw.get(userEvents(shy.user.id), token ? { token } : {});
      expect(res.status).toBe(200);
      return (res.body as Json[]).length;
    };
    expect(await count()).toBe(0);
    expect(await count(other.secret)).toBe(0);
    expect(await count(shy.secret)).toBe(1);
    expect(await count(adminToken)).toBe(1);
  });

  it("filters by action, target_type, before and after, sorts and pages", async () => {
    const owner = await knownUser(stack);
    const dev = await knownUser(stack);
    const project = await newProject(stack, owner.secret);
    await addMember(owner.secret, project.id, dev.user.id);
    const actions = async (query: string) => {
      const res = await stack.gw.get(projectEvents(project.id, query), { token: owner.secret });
      expect(res.status).toBe(200);
      return summary(res.body).map((e) => e[0]);
    };
    expect(await actions("")).toEqual(["joined", "created"]);
    expect(await actions("?sort=asc")).toEqual(["created", "joined"]);
    expect(await actions("?action=joined")).toEqual(["joined"]);
    expect(await actions("?action=pushed")).toEqual([]);
    expect(await actions("?target_type=project")).toEqual([]);
    expect(await actions(`?before=${day(1)}`)).toEqual(["joined", "created"]);
    expect(await actions(`?before=${day(0)}`)).toEqual([]);
    expect(await actions(`?after=${day(-1)}`)).toEqual(["joined", "created"]);
    expect(await actions(`?after=${day(0)}`)).toEqual([]);
    const page = await stack.gw.get(projectEvents(project.id, "?per_page=1&page=2"), { token: owner.secret });
    expect(summary(page.body).map((e) => e[0])).toEqual(["created"]);
    expect(page.headers.get("x-total")).toBe("2");
    expect(page.headers.get("x-page")).toBe("2");
    expect(page.headers.get("x-per-page")).toBe("1");
  });

  it.each([
    ["action does not have a valid value", "?action=bogus"],
    ["target_type does not have a valid value", "?target_type=Project"],
    ["sort does not have a valid value", "?sort=sideways"],
    ["before is invalid", "?before=2024-02-30"],
    ["after is invalid", "?after=yesterday"],
    ["action does not have a valid value", "?action=%27%3B%20DROP%20TABLE%20events"],
    ["action does not have a valid value", "?action=j%C3%B6ined"],
    ["before is invalid", `?before=${"9".repeat(5000)}`],
  ])("answers 400 %s (case %#) with nothing changed", async (error, query) => {
    const owner = await knownUser(stack);
    const project = await newProject(stack, owner.secret);
    const before = await stack.db.query("SELECT count(*)::int AS n FROM projects.events");
    for (const path of [
      projectEvents(project.id, query),
      userEvents(owner.user.id, query),
      `/api/v4/events${query}`,
    ])
      expectError(await stack.gw.get(path, { token: owner.secret }), 400, { error });
    expect(await stack.db.query("SELECT count(*)::int AS n FROM projects.events")).toMatchObject({
      rows: before.rows,
    });
  });
});
