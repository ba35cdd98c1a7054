/**
 * Group and member changes made the way a careful client makes them: a write that answers 5xx or
 * nothing may still have committed, so the client looks before it tries again, and each intended
 * change happens, and becomes one event, exactly once. Then what the webhook receiver got is compared
 * with what those changes must have produced: per event, one Idempotency-Key.
 */
import { randomBytes } from "node:crypto";
import type { Delivery } from "../../e2e/test/support/hook-receiver";
import { pause, type World } from "./world";

export interface Group {
  id: number;
  full_path: string;
  /** Where its hook delivers on the receiver. */
  hookPath: string;
}

const unique = (prefix: string) => `${prefix}${randomBytes(4).toString("hex")}`;

/** Something every caller must get: fails on anything but `status`. */
async function must(world: World, status: number, method: string, path: string, body?: unknown) {
  const res = await world.api(method, path, { body });
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  return res.json;
}

export async function newUsers(world: World, count: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < count; i++) {
    const username = unique("fault-user-");
    const body = { username, email: `${username}@example.com`, name: username, password: unique("pw-pw-") };
    ids.push((await must(world, 201, "POST", "/api/v4/users", { ...body, skip_confirmation: true })).id);
  }
  return ids;
}

/** A top-level group with a hook for member and subgroup events. */
export async function newHookedGroup(world: World): Promise<Group> {
  const path = unique("fault-");
  const group = await must(world, 201, "POST", "/api/v4/groups", { name: path, path });
  const hookPath = `/${path}`;
  const hook = { url: `${world.receiver.url}${hookPath}`, member_events: true, subgroup_events: true };
  // The hooks replicas learn the settings from their snapshot: a moment after it changed.
  for (let tries = 0; ; tries++) {
    const res = await world.api("POST", `/api/v4/groups/${group.id}/hooks`, { body: hook });
    if (res.status === 201) break;
    if (tries > 100) throw new Error(`hook: ${res.status} ${JSON.stringify(res.json)}`);
    await pause(200);
  }
  return { id: group.id, full_path: group.full_path, hookPath };
}

const RETRYABLE = new Set([0, 502, 503, 504]);
/** How long a careful client keeps trying before it gives up on the service. */
const GIVE_UP_MS = 60_000;

/** Whether `probe` says the change is in: polls while the answer is inconclusive (5xx, no answer). */
async function settled(world: World, path: string, present: boolean): Promise<boolean> {
  const deadline = Date.now() + GIVE_UP_MS;
  for (;;) {
    if (Date.now() > deadline) throw new Error(`GET ${path}: no answer for ${GIVE_UP_MS} ms`);
    const res = await world.api("GET", path);
    if (res.status === 200) return present;
    if (res.status === 404) return !present;
    if (!RETRYABLE.has(res.status)) throw new Error(`GET ${path}: ${res.status}`);
    await pause(300);
  }
}

/** Adds or removes `user` in `group` exactly once. */
export async function changeMember(world: World, group: number, user: number, add: boolean) {
  const member = `/api/v4/groups/${group}/members/${user}`;
  for (let retried = false; ; retried = true) {
    const res = add
      ? await world.api("POST", `/api/v4/groups/${group}/members`, {
          body: { user_id: user, access_level: 30 },
        })
      : await world.api("DELETE", member);
    if (res.status === (add ? 201 : 204)) return;
    if (retried && res.status === (add ? 409 : 404)) return;
    if (!RETRYABLE.has(res.status))
      throw new Error(`member change: ${res.status} ${JSON.stringify(res.json)}`);
    await pause(300);
    if (await settled(world, member, add)) return;
  }
}

/** Creates a subgroup of `parent` exactly once; its id. */
export async function newSubgroup(world: World, parent: Group): Promise<number> {
  const path = unique("sub-");
  for (const deadline = Date.now() + GIVE_UP_MS; ;) {
    if (Date.now() > deadline) throw new Error(`subgroup ${path}: no answer for ${GIVE_UP_MS} ms`);
    const res = await world.api("POST", "/api/v4/groups", {
      body: { name: path, path, parent_id: parent.id, visibility: "private" },
    });
    if (res.status === 201) return res.json.id;
    if (!RETRYABLE.has(res.status)) throw new Error(`subgroup: ${res.status} ${JSON.stringify(res.json)}`);
    await pause(300);
    const found = await world.api(
      "GET",
      `/api/v4/groups/${encodeURIComponent(`${parent.full_path}/${path}`)}`,
    );
    if (found.status === 200) return found.json.id;
  }
}

/** What one hook must receive: how many events of each kind, by `kind(delivery)`. */
export class Expected {
  readonly counts = new Map<string, number>();
  add(key: string, times = 1) {
    this.counts.set(key, (this.counts.get(key) ?? 0) + times);
  }
  /** Every member of each subgroup was added there (its creator as Owner): that event reaches up too. */
  async addSubgroupMembers(world: World, subgroups: number[]) {
    for (const id of subgroups) {
      for (const m of (await world.api("GET", `/api/v4/groups/${id}/members`)).json as { id: number }[])
        this.add(`user_add_to_group:${id}:${m.id}`);
    }
  }
  get total() {
    return [...this.counts.values()].reduce((a, b) => a + b, 0);
  }
}

const kind = (j: Record<string, unknown>) =>
  j.event_name === "subgroup_create"
    ? `subgroup_create:${j.group_id}`
    : `${j.event_name}:${j.group_id}:${j.user_id}`;

/** Deliveries at `path` by event kind, one per Idempotency-Key (a retry repeats its key). */
export function receivedKinds(deliveries: Delivery[], path: string): Map<string, number> {
  const byKey = new Map<string, Delivery>();
  for (const d of deliveries) if (d.path === path) byKey.set(String(d.headers["idempotency-key"]), d);
  const counts = new Map<string, number>();
  for (const d of byKey.values()) counts.set(kind(d.json), (counts.get(kind(d.json)) ?? 0) + 1);
  return counts;
}

/** Lost (expected, never arrived) and doubled (arrived under more keys than events) deliveries. */
export function compare(expected: Expected, got: Map<string, number>) {
  let lost = 0;
  let doubled = 0;
  for (const [k, n] of expected.counts) lost += Math.max(0, n - (got.get(k) ?? 0));
  for (const [k, n] of got) doubled += Math.max(0, n - (expected.counts.get(k) ?? 0));
  return { lost, doubled };
}

/** Runs `work` on every item, at most `limit` at a time. */
export async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}
