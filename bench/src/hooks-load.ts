// bench:hooks' load: group events through the API at a fixed, open-loop rate. Each call starts at
// its slot whether or not earlier calls have answered (a slow stack does not slow the load down,
// which would hide its latency).
//
// Every call creates a subgroup of a hooked group, in turn (POST /groups), which is two events: the
// parent's subgroup_create, and user_add_to_group of the creator, who becomes the subgroup's Owner
// (a member event of the subgroup reaches its ancestors' hooks). Both name the subgroup's path,
// unique to the call and known before it is made, so a delivery is matched to its call even when
// the call's answer was lost (a 503 or a timeout after the write committed: hooks.ts then asks
// whether the subgroup exists). `rate` events per second are rate / 2 calls per second.
import { nowMs } from "./hooks-receiver";

/** One API call, and the events it should have caused. */
export interface Call {
  /** The subgroup's path, and which of the hooked groups it was made in. */
  path: string;
  parent: number;
  /** When its slot was (the open loop's schedule) and when it really started and answered. */
  due: number;
  start: number;
  end: number;
  status: number;
  /** The receiver's match keys of its events (hooks-receiver.ts matchOf); empty if it surely failed. */
  matches: string[];
  /** Why it did not answer 201 (the write may still have happened). */
  error?: string;
}

export interface LoadPlan {
  url: string;
  token: string;
  /** The hooked groups (each its own tree): calls take them in turn. */
  groupIds: number[];
  /** Events per second. */
  rate: number;
  seconds: number;
  /** Unique per run: subgroup paths must not clash. */
  label: string;
}

export interface LoadResult {
  calls: Call[];
  /** The most calls waiting for an answer at once. */
  maxInFlight: number;
  elapsedMs: number;
}

/** Events each call causes. */
export const EVENTS_PER_CALL = 2;

/** The match keys of a subgroup's two events (hooks-receiver.ts matchOf). */
export const matchesOf = (path: string) => [`subgroup_create:${path}`, `user_add_to_group:${path}`];

async function create(plan: LoadPlan, path: string, parentId: number) {
  const res = await fetch(`${plan.url}/api/v4/groups`, {
    method: "POST",
    headers: { "PRIVATE-TOKEN": plan.token, "Content-Type": "application/json" },
    body: JSON.stringify({ name: path, path, parent_id: parentId }),
  });
  return { status: res.status, text: await res.text() };
}

/** Runs the load; resolves when every call has answered. */
export async function drive(plan: LoadPlan): Promise<LoadResult> {
  const calls: Call[] = [];
  const pending: Promise<void>[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const count = Math.ceil((plan.rate * plan.seconds) / EVENTS_PER_CALL);
  const slotMs = (1000 * EVENTS_PER_CALL) / plan.rate;
  const t0 = nowMs() + 50;

  const run = async (call: Call) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    call.start = nowMs();
    try {
      const res = await create(plan, call.path, plan.groupIds[call.parent]!);
      call.status = res.status;
      if (res.status === 201) call.matches = matchesOf(call.path);
      else call.error = res.text.slice(0, 200);
    } catch (err) {
      call.error = (err as Error).message;
    } finally {
      call.end = nowMs();
      inFlight--;
    }
  };

  for (let i = 0; i < count; i++) {
    const due = t0 + i * slotMs;
    const wait = due - nowMs();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const parent = i % plan.groupIds.length;
    const call: Call = {
      path: `bench-${plan.label}-${i}`,
      parent,
      due,
      start: 0,
      end: 0,
      status: 0,
      matches: [],
    };
    calls.push(call);
    pending.push(run(call));
  }
  await Promise.all(pending);
  return { calls, maxInFlight, elapsedMs: nowMs() - t0 };
}
