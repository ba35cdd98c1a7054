/**
 * Issue 9's loss test: 1,000 group events (member additions and removals, subgroup creations) fan
 * out to a hook on the group and one on its parent while the broker is stopped and started again
 * and a hooks replica is killed with SIGKILL mid-stream. Every expected delivery must arrive, and no
 * event may become two deliveries: each reaches each hook under exactly one Idempotency-Key.
 *
 * The broker is a nats-server of this test's own (the machine's is shared with other runs), and the
 * replica that is killed runs in a process of its own from the built service (`npm run build`
 * first, as `npm test` does); the rest of the stack runs in this process.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { OwnNats } from "@canopy/kit/testing";
import {
  newGroup,
  newHook,
  newUser,
  startHooksStack,
  unique,
  waitFor,
  type Group,
  type HooksStack,
  type Received,
  type User,
} from "./support";

jest.setTimeout(240_000);

const BUILT_SERVICE = path.join(__dirname, "..", "dist", "main.js");
const USERS = 20;
const CYCLES = 24; // each an addition and a removal: 20 x 24 x 2 = 960 member events
const SUBGROUPS = 40;
const EVENTS = USERS * CYCLES * 2 + SUBGROUPS;
// Each subgroup's creator becomes its Owner: a user_add_to_group in the subgroup, which reaches
// the hooks of its ancestors too.
const DELIVERIES_PER_HOOK = EVENTS + SUBGROUPS;

/** Why the built service is not the sources' (missing, or a source newer than its build), if so. */
function staleBuild(dir = path.join(__dirname, "..", "src")): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const source = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const found = staleBuild(source);
      if (found) return found;
    } else if (entry.name.endsWith(".ts")) {
      const built = source
        .replace(`${path.sep}src${path.sep}`, `${path.sep}dist${path.sep}`)
        .replace(/\.ts$/, ".js");
      if (!existsSync(built) || statSync(built).mtimeMs < statSync(source).mtimeMs)
        return `${built} is stale`;
    }
  }
  return undefined;
}

let nats: OwnNats;
let stack: HooksStack;
let replica: ChildProcess | undefined;

beforeAll(async () => {
  const stale = staleBuild();
  if (stale) throw new Error(`${stale}: run npm run build first (the killed replica runs the built service)`);
  nats = await OwnNats.start();
  stack = await startHooksStack({
    env: { CANOPY_NATS_URL: nats.url },
    // A killed replica's claimed deliveries come back after the lease: timeout + 30 s.
    hooksEnv: { CANOPY_HOOK_TIMEOUT_SECONDS: "2" },
  });
});
afterAll(async () => {
  replica?.kill("SIGKILL");
  await stack?.stop();
  await nats?.dispose();
});

/** A second hooks replica in a process of its own; resolves once it is serving. */
async function startReplicaProcess(): Promise<ChildProcess> {
  const env = { ...process.env, ...stack.replicaEnv({ CANOPY_HOOKS_GRPC_PORT: "0" }) };
  const child = spawn(process.execPath, [BUILT_SERVICE], { env, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout!.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  child.stderr!.on("data", (c: Buffer) => (output = (output + c.toString()).slice(-20_000)));
  await waitFor("the replica process ready", () => {
    if (child.exitCode !== null) throw new Error(`replica exited: ${output}`);
    return output.includes("hooks ready");
  });
  return child;
}

/** Runs `work` on every item, `lanes` at a time, counting finished calls in `progress`. */
async function inLanes<T>(lanes: T[][], work: (item: T) => Promise<void>, progress: { done: number }) {
  await Promise.all(
    lanes.map(async (lane) => {
      for (const item of lane) {
        await work(item);
        progress.done++;
      }
    }),
  );
}

const keyOf = (r: Received) => String(r.headers["idempotency-key"]);
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const UNAVAILABLE = new Set([502, 503, 504]);

/**
 * Adds or removes `u` until the group says it is done. A committed write answers its success even
 * while the broker is down (broker-down-writes.test.ts), but a killed replica or a lost connection can
 * still answer 503 after a commit: like a client, it looks, and tries again only when the write did
 * not happen, so each intended change is made, and becomes one event, exactly once.
 */
async function settledMembership(group: Group, u: User, add: boolean, as: User) {
  const member = `/api/v4/groups/${group.id}/members/${u.id}`;
  for (let retried = false; ; retried = true) {
    const res = add
      ? await stack.gw.post(`/api/v4/groups/${group.id}/members`, {
          token: as.token,
          json: { user_id: u.id, access_level: 30 },
        })
      : await stack.gw.delete(member, { token: as.token });
    if (res.status === (add ? 201 : 204)) return;
    if (retried && res.status === (add ? 409 : 404)) return;
    if (!UNAVAILABLE.has(res.status)) throw new Error(`${res.status} ${res.text}`);
    await pause(500);
    const now = await stack.gw.get(member, { token: as.token });
    if (now.status === (add ? 200 : 404)) return;
  }
}

/** Creates a subgroup of `parent` the same way; its id. */
async function settledSubgroup(parent: Group, as: User): Promise<number> {
  const path = unique("sub-").toLowerCase();
  for (;;) {
    const res = await stack.gw.post("/api/v4/groups", {
      token: as.token,
      json: { name: path, path, parent_id: parent.id, visibility: "private" },
    });
    if (res.status === 201) return (res.body as { id: number }).id;
    await pause(500);
    const now = await stack.gw.get(`/api/v4/groups/${encodeURIComponent(`${parent.full_path}/${path}`)}`, {
      token: as.token,
    });
    if (now.status === 200) return (now.body as { id: number }).id;
  }
}

it("delivers every event exactly once per Idempotency-Key across a broker restart and a killed replica", async () => {
  const owner = await newUser(stack);
  const root = await newGroup(stack, owner);
  const group = await newGroup(stack, owner, { parent_id: root.id });
  const paths = { root: `/${unique("root")}`, group: `/${unique("group")}` };
  for (const [g, p] of [
    [root, paths.root],
    [group, paths.group],
  ] as [Group, string][])
    await newHook(stack, g, owner, {
      url: stack.receiver.url + p,
      member_events: true,
      subgroup_events: true,
      push_events: false,
    });
  const users: User[] = [];
  for (let i = 0; i < USERS; i++) users.push(await newUser(stack));
  replica = await startReplicaProcess();

  const progress = { done: 0 };
  const faults = (async () => {
    await waitFor("a quarter of the events", () => progress.done >= EVENTS / 4, 120_000);
    await nats.stop();
    await new Promise((r) => setTimeout(r, 3_000));
    await nats.start();
    await waitFor("half of the events", () => progress.done >= EVENTS / 2, 120_000);
    replica!.kill("SIGKILL");
  })();
  const memberLanes = users.map((u: User | undefined) =>
    Array.from({ length: CYCLES * 2 }, (_, i) => ({ u, add: i % 2 === 0 })),
  );
  const subgroupLane = Array.from({ length: SUBGROUPS }, () => ({
    u: undefined as User | undefined,
    add: true,
  }));
  const subgroupIds: number[] = [];
  const started = Date.now();
  await inLanes(
    [...memberLanes, subgroupLane],
    async ({ u, add }) => {
      if (!u) subgroupIds.push(await settledSubgroup(group, owner));
      else await settledMembership(group, u, add, owner);
    },
    progress,
  );
  await faults;
  const issuedMs = Date.now() - started;

  // Both hooks get every event: member events of `group` reach its hooks and its parent's, and a
  // new subgroup's subgroup_create and creator's membership reach `group`'s hooks and up.
  const distinctKeys = (p: string) => new Set(stack.receiver.at(p).map(keyOf)).size;
  await waitFor(
    "every delivery",
    () => distinctKeys(paths.group) >= DELIVERIES_PER_HOOK && distinctKeys(paths.root) >= DELIVERIES_PER_HOOK,
    150_000,
  ).catch(async (err) => {
    const { rows } = await stack.db.query(
      "SELECT hook_id, count(*)::int AS n, min(next_attempt_at) AS due, max(attempts) AS attempts, max(leased_until) AS leased FROM deliveries GROUP BY hook_id",
    );
    const events = await stack.db.query("SELECT count(*)::int AS n FROM processed_events");
    const unseen = await stack.db.query(
      `SELECT o.subject, o.published_at IS NOT NULL AS published, o.stream_seq FROM groups.outbox o
        WHERE NOT EXISTS (SELECT 1 FROM hooks.processed_events p WHERE p.event_id::text = o.id::text)`,
    );
    const tally: Record<string, number> = {};
    for (const r of new Map(stack.receiver.at(paths.group).map((r) => [keyOf(r), r])).values()) {
      const k = `${r.json.event_name}:${r.json.user_id ?? ""}`;
      tally[k] = (tally[k] ?? 0) + 1;
    }
    const odd = Object.entries(tally).filter(([, n]) => n !== CYCLES);
    console.log(JSON.stringify({ unseen: unseen.rows, odd }));
    throw new Error(
      `${err}: ${distinctKeys(paths.root)} and ${distinctKeys(paths.group)} keys; pending ${JSON.stringify(rows)}; ${events.rows[0].n} events processed`,
    );
  });
  await new Promise((r) => setTimeout(r, 1_000));

  for (const p of [paths.root, paths.group]) {
    const got = stack.receiver.at(p);
    const byKey = new Map<string, Received[]>();
    for (const r of got) byKey.set(keyOf(r), [...(byKey.get(keyOf(r)) ?? []), r]);
    // One key per event: as many keys as events, and a key's repeats carry the same event.
    expect(byKey.size).toBe(DELIVERIES_PER_HOOK);
    for (const repeats of byKey.values()) expect(new Set(repeats.map((r) => r.body)).size).toBe(1);
    const first = [...byKey.values()].map((rs) => rs[0]!.json);
    const count = (name: string, id?: number) =>
      first.filter((j) => j.event_name === name && (id === undefined || j.user_id === id)).length;
    for (const u of users) {
      expect([count("user_add_to_group", u.id), count("user_remove_from_group", u.id)]).toEqual([
        CYCLES,
        CYCLES,
      ]);
    }
    const created = first.filter((j) => j.event_name === "subgroup_create").map((j) => j.group_id);
    expect(created.sort()).toEqual([...subgroupIds].sort());
    const ownerAdds = first.filter((j) => j.event_name === "user_add_to_group" && j.user_id === owner.id);
    expect(ownerAdds.map((j) => j.group_id).sort()).toEqual([...subgroupIds].sort());
    // Re-sent after the kill (the same key twice: at least once, de-duplicated by the receiver).
    const resent = got.length - byKey.size;
    console.log(
      `${p}: ${byKey.size} distinct deliveries after ${issuedMs} ms of API calls, ${resent} re-sent under their key`,
    );
  }
  const { rows } = await stack.db.query<{ n: number }>("SELECT count(*)::int AS n FROM deliveries");
  expect(rows[0]!.n).toBe(0);
});
