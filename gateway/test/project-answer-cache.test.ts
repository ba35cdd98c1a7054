/**
 * The answer cache on the project reads (GET /projects, /projects/:id, /users/:id/projects): kept per
 * caller and request, never served after a write through any gateway, dropped by the projects
 * service's events (changes made without a request) and by its ProjectCopiesChanged (a group or
 * user change applied to its copies after the gateways heard of it).
 */
import { randomBytes } from "node:crypto";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { auth, projects } from "@canopy/protos";
import { signedInUser, startStack, unique, waitFor, type Gateway, type Stack } from "./support";

// Four services and two gateways start on a shared 2-core machine.
jest.setTimeout(60_000);

let stack: Stack;
let second: Gateway;
// A database and event stream of its own: other files' events, on the run's shared stream, would
// drop this file's kept answers at any moment (the drops are what it checks).
let db: ThrowawayDatabase;
beforeAll(async () => {
  db = await throwawayDatabase("canopy_test_panswers_");
  const cached = {
    CANOPY_ANSWER_CACHE_SECONDS: "60",
    CANOPY_REDIS_KEY_PREFIX: `panswers${randomBytes(3).toString("hex")}:`,
  };
  stack = await startStack({ env: db.env, gateways: [cached, cached] });
  second = stack.gateways[1]!;
});
afterAll(async () => {
  await stack.stop();
  await db.drop();
});

type Project = { id: number; description: string | null; path: string; star_count: number };

const projectOf = async (gw: Gateway, token: string, id: number) =>
  (await gw.get(`/api/v4/projects/${id}`, { token })).body as Project;
const pathsOf = async (gw: Gateway, token: string, query: string) =>
  ((await gw.get(`/api/v4/projects?${query}`, { token })).body as Project[]).map((p) => p.path).sort();

it("serves a repeated project read from the cache until a write through any gateway", async () => {
  const { secret } = await signedInUser(stack);
  const created = await stack.gw.post("/api/v4/projects", { token: secret, json: { name: unique("c") } });
  const id = (created.body as Project).id;
  expect((await projectOf(second, secret, id)).description).toBeNull();
  await stack.db.query("UPDATE projects.projects SET description = 'behind' WHERE id = $1", [id]);
  // Nothing the cache hears of changed: the kept answer is served.
  expect((await projectOf(second, secret, id)).description).toBeNull();
  const starred = await stack.gw.post(`/api/v4/projects/${id}/star`, { token: secret });
  expect(starred.status).toBe(201);
  const fresh = await projectOf(second, secret, id);
  expect(fresh).toMatchObject({ description: "behind", star_count: 1 });
});

it("keeps answers per caller and shows a list's own writes at once on every gateway", async () => {
  const owner = await signedInUser(stack);
  const stranger = await signedInUser(stack);
  const tag = unique("lst");
  expect(await pathsOf(second, owner.secret, `search=${tag}`)).toEqual([]);
  const made = await stack.gw.post("/api/v4/projects", { token: owner.secret, json: { name: `${tag}-a` } });
  const project = made.body as Project;
  expect(await pathsOf(second, owner.secret, `search=${tag}`)).toEqual([project.path]);
  const mine = `/api/v4/users/${owner.user.id}/projects`;
  expect(((await second.get(mine, { token: owner.secret })).body as Project[]).map((p) => p.id)).toEqual([
    project.id,
  ]);
  // A private project kept for its owner is still invisible to anyone else.
  expect((await second.get(`/api/v4/projects/${project.id}`, { token: owner.secret })).status).toBe(200);
  expect((await second.get(`/api/v4/projects/${project.id}`, { token: stranger.secret })).status).toBe(404);
  expect((await second.get(mine, { token: stranger.secret })).body).toEqual([]);
  expect(await pathsOf(second, stranger.secret, `search=${tag}`)).toEqual([]);
});

it("drops answers on a projects event for a change made without a request", async () => {
  const { secret } = await signedInUser(stack);
  const created = await stack.gw.post("/api/v4/projects", { token: secret, json: { name: unique("e") } });
  const id = (created.body as Project).id;
  expect((await projectOf(second, secret, id)).description).toBeNull();
  const root = await stack.authService
    .client(auth.AuthServiceService)
    .authenticate({ token: stack.rootToken });
  // The service called directly, as its own schedulers and consumers change things: only its event tells.
  await stack.projectsService.client(projects.ProjectsServiceService).updateProject(
    projects.UpdateProjectRequest.fromPartial({
      actor: root.actor,
      project: { id },
      attributes: { description: "by event" },
    }),
  );
  await waitFor(
    "the project event to drop the kept answer",
    async () => (await projectOf(second, secret, id)).description === "by event",
  );
});

it("shows a project reached through a new group membership once the projects service has it", async () => {
  const owner = await signedInUser(stack);
  const viewer = await signedInUser(stack);
  const path = unique("gm");
  const group = await stack.gw.post("/api/v4/groups", { token: owner.secret, json: { name: path, path } });
  const groupId = (group.body as { id: number }).id;
  const made = await stack.gw.post("/api/v4/projects", {
    token: owner.secret,
    json: { name: `${path}-p`, namespace_id: groupId },
  });
  expect(made.status).toBe(201);
  expect(await pathsOf(second, viewer.secret, `search=${path}`)).toEqual([]);
  const added = await stack.gw.post(`/api/v4/groups/${groupId}/members`, {
    token: owner.secret,
    json: { user_id: viewer.user.id, access_level: 30 },
  });
  expect(added.status).toBe(201);
  // Read at once: the write bumped the generation before the projects service applied the
  // membership, so this answer may be computed from the old copy and kept; its ProjectCopiesChanged
  // must drop it (otherwise the old answer stays for the cache's 60 seconds).
  await pathsOf(second, viewer.secret, `search=${path}`);
  await waitFor(
    "the membership to reach the viewer's project list",
    async () => (await pathsOf(second, viewer.secret, `search=${path}`)).length === 1,
    30_000, // an event's way on a loaded machine
  );
});
