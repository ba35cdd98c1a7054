/**
 * Read your own writes across services (the kit's events/positions.ts, http/recent-writes.ts): the
 * projects service checks access against its copies of groups, memberships and users, and the
 * groups service checks paths against its copy of projects, both fed by events. A client that
 * writes through one service and at once calls another must not see the copy's lag, as GitLab has
 * none: python-gitlab and gitbeaker scripts make their calls back to back.
 *
 * On an idle machine a copy lags by a few milliseconds, less than a request takes, so each round
 * first holds the consumers as a loaded machine would (`hold`), then writes and reads without any
 * wait. Two replicas of the projects service share its consumers, and two gateways share Redis:
 * writes go through one gateway and reads through the other.
 */
import type { PoolClient } from "pg";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { signedInUser, startStack, unique, type Gateway, type SignedIn, type Stack } from "./support";

type Json = Record<string, unknown>;
const api = "/api/v4";
const ROUNDS = 3;
/** How long a round holds the consumers: well within the 3 s a call waits for them. */
const HOLD_MS = 700;

let db: ThrowawayDatabase;
let stack: Stack;
let first: Gateway;
let second: Gateway;
let owner: SignedIn;
let member: SignedIn;
// A database and event stream of its own: holding its consumers must not hold other files'.
beforeAll(async () => {
  db = await throwawayDatabase("canopy_test_ryow_");
  // Redis keys of its own too: its users' ids start again from 1 in its database, and another
  // file's recent writes under the same ids (positions in another stream) must not reach its calls.
  const env = { ...db.env, CANOPY_REDIS_KEY_PREFIX: `${unique("ryow")}:` };
  stack = await startStack({ env, gateways: [{}, {}], projectsReplicas: 2 });
  [first, second] = [stack.gateways[0]!, stack.gateways[1]!];
  owner = await signedInUser(stack);
  member = await signedInUser(stack);
});
afterAll(async () => {
  await stack.stop();
  await db.drop();
});

/**
 * Holds every durable consumer of the named services for `HOLD_MS`, as a loaded machine delays
 * them: a consumer's first statement records the event as handled, and waits for this lock; the
 * services' reads and their own writes do not. Resolves to a function that awaits the release.
 */
async function hold(services: ("projects" | "groups")[]): Promise<() => Promise<void>> {
  const client: PoolClient = await stack.db.connect();
  await client.query("BEGIN");
  const tables = services.map((s) => `${s}.processed_events`).join(", ");
  await client.query(`LOCK TABLE ${tables} IN SHARE MODE`);
  const released = new Promise((resolve) => setTimeout(resolve, HOLD_MS)).then(async () => {
    await client.query("COMMIT");
    client.release();
  });
  return () => released;
}

async function post(gw: Gateway, path: string, token: string, json: Json = {}) {
  const res = await gw.post(`${api}${path}`, { token, json });
  return { status: res.status, body: res.body as Json, text: res.text };
}

async function newGroup(gw: Gateway, json: Json = {}) {
  const path = unique("ryow");
  const res = await post(gw, "/groups", owner.secret, { name: path, path, visibility: "private", ...json });
  expect(res.status).toBe(201);
  return res.body as { id: number; full_path: string };
}

async function newProject(gw: Gateway, namespaceId: number, json: Json = {}) {
  const res = await post(gw, "/projects", owner.secret, {
    name: unique("p"),
    namespace_id: namespaceId,
    visibility: "private",
    ...json,
  });
  expect(res.status).toBe(201);
  return res.body as { id: number; path: string };
}

it("lets a group's creator archive, star and list a project of it right after making the group", async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const held = await hold(["projects"]);
    const group = await newGroup(first);
    const project = await newProject(second, group.id);
    expect((await post(first, `/projects/${project.id}/archive`, owner.secret)).status).toBe(201);
    expect((await post(second, `/projects/${project.id}/star`, owner.secret)).status).toBe(201);
    const listed = await first.get(`${api}/groups/${group.id}/projects`, { token: owner.secret });
    expect(listed.status).toBe(200);
    expect((listed.body as Json[]).map((p) => p.id)).toEqual([project.id]);
    await held();
  }
});

it("lets a member added to a private group read its private project at once", async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const group = await newGroup(first);
    const project = await newProject(first, group.id);
    const held = await hold(["projects"]);
    const added = await post(first, `/groups/${group.id}/members`, owner.secret, {
      user_id: member.user.id,
      access_level: 20,
    });
    expect(added.status).toBe(201);
    // The member did not write: the membership event names them, so their own reads wait for it too.
    const read = await second.get(`${api}/projects/${project.id}`, { token: member.secret });
    expect(read.status).toBe(200);
    const listed = await second.get(`${api}/groups/${group.id}/projects`, { token: member.secret });
    expect((listed.body as Json[]).map((p) => p.id)).toEqual([project.id]);
    await held();
  }
});

it("lets a group's creator add a project member right after making the group", async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const held = await hold(["projects"]);
    const group = await newGroup(second);
    const project = await newProject(first, group.id);
    const added = await post(second, `/projects/${project.id}/members`, owner.secret, {
      user_id: member.user.id,
      access_level: 30,
    });
    expect(added.status).toBe(201);
    await held();
  }
});

it("shows a transferred group's project in its new parent's subtree at once", async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const parent = await newGroup(first);
    const moved = await newGroup(first);
    const project = await newProject(second, moved.id);
    const held = await hold(["projects"]);
    const transferred = await post(first, `/groups/${moved.id}/transfer`, owner.secret, {
      group_id: parent.id,
    });
    expect(transferred.status).toBe(201);
    const listed = await second.get(`${api}/groups/${parent.id}/projects?include_subgroups=true`, {
      token: owner.secret,
    });
    expect((listed.body as Json[]).map((p) => p.id)).toEqual([project.id]);
    const read = await first.get(`${api}/projects/${project.id}`, { token: owner.secret });
    expect((read.body as Json).path_with_namespace).toBe(
      `${parent.full_path}/${moved.full_path}/${project.path}`,
    );
    await held();
  }
});

it("refuses a subgroup taking the path of a project made a moment before (the groups service's copy)", async () => {
  for (let round = 0; round < ROUNDS; round++) {
    const group = await newGroup(first);
    const held = await hold(["groups"]);
    const project = await newProject(first, group.id);
    const subgroup = await post(second, "/groups", owner.secret, {
      name: project.path,
      path: project.path,
      parent_id: group.id,
    });
    expect(subgroup.status).toBe(400);
    expect(subgroup.body).toEqual({ message: 'Failed to save group {:path=>["has already been taken"]}' });
    await held();
  }
});

it("lets a user created a moment ago read and write at once", async () => {
  for (let round = 0; round < ROUNDS; round++) {
    // The administrator's user creation names the new user: their first calls wait for the copies.
    // (POST /projects without namespace_id also waits for the personal namespace on its own,
    // CANOPY_PROJECTS_COPY_WAIT_MS, so this round passed before read-your-writes too.)
    const held = await hold(["projects", "groups"]);
    const fresh = await signedInUser(stack);
    const created = await post(second, "/projects", fresh.secret, { name: unique("mine") });
    expect(created.status).toBe(201);
    const starred = await post(first, `/projects/${(created.body as { id: number }).id}/star`, fresh.secret);
    expect(starred.status).toBe(201);
    await held();
  }
});
