// bench:hooks' reckoning: which delivery belongs to which API call, what was lost or doubled, and
// the end-to-end latency from the call's start to the receiver seeing the request.
//
// A delivery names its event (hooks-receiver.ts matchOf): the event and the group's path, which
// names one call (hooks-load.ts). Should a load ever make the same key twice, the n-th delivery
// of a key to a hook belongs to the n-th call of it (one hook's deliveries go out in event order).
// Duplicates are counted first, so a redelivery under the same Idempotency-Key cannot shift that.
import type { Call } from "./hooks-load";
import type { Receipt } from "./hooks-receiver";

export interface Reckoning {
  events: number;
  expected: number;
  /** Distinct deliveries received (one per Idempotency-Key and hook). */
  received: number;
  lost: number;
  /** Same Idempotency-Key received again by one hook, plus an event delivered under two keys. */
  doubled: number;
  /** Deliveries no call accounts for (not counted as received). */
  unexpected: number;
  /** End-to-end latencies, ms, sorted. */
  latencies: number[];
  /** First and last receipt of a matched delivery. */
  firstAt: number;
  lastAt: number;
}

/** The q-quantile (0..1) of sorted values, nearest rank. */
export const quantile = (sorted: number[], q: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]! : NaN;

export function reckon(calls: Call[], receipts: Receipt[], hooks: string[]): Reckoning {
  // The n-th call of each match key, in the order the calls started.
  const callsOf = new Map<string, Call[]>();
  let events = 0;
  for (const call of [...calls].sort((a, b) => a.start - b.start))
    for (const match of call.matches) {
      events++;
      const list = callsOf.get(match) ?? [];
      list.push(call);
      callsOf.set(match, list);
    }

  let received = 0;
  let doubled = 0;
  let lost = 0;
  let unexpected = 0;
  let firstAt = Infinity;
  let lastAt = -Infinity;
  const latencies: number[] = [];
  for (const hook of hooks) {
    const firstOfKey = new Map<string, Receipt>();
    for (const r of receipts.filter((x) => x.hook === hook).sort((a, b) => a.at - b.at)) {
      if (firstOfKey.has(r.key)) doubled++;
      else firstOfKey.set(r.key, r);
    }
    received += firstOfKey.size;
    const byMatch = new Map<string, Receipt[]>();
    for (const r of firstOfKey.values()) {
      const list = byMatch.get(r.match);
      if (list) list.push(r);
      else byMatch.set(r.match, [r]);
    }
    for (const [match, callList] of callsOf) {
      const got = byMatch.get(match) ?? [];
      byMatch.delete(match);
      lost += Math.max(0, callList.length - got.length);
      doubled += Math.max(0, got.length - callList.length);
      for (const [n, r] of got.slice(0, callList.length).entries()) {
        latencies.push(r.at - callList[n]!.start);
        firstAt = Math.min(firstAt, r.at);
        lastAt = Math.max(lastAt, r.at);
      }
    }
    for (const rest of byMatch.values()) unexpected += rest.length;
  }
  received -= unexpected;
  latencies.sort((a, b) => a - b);
  return {
    events,
    expected: events * hooks.length,
    received,
    lost,
    doubled,
    unexpected,
    latencies,
    firstAt,
    lastAt,
  };
}

/** Deliveries per second in each `bucketMs` window from `from`: how the rate held up over the run. */
export function deliveriesPerWindow(receipts: Receipt[], from: number, bucketMs: number): number[] {
  const counts: number[] = [];
  for (const r of receipts) {
    const i = Math.floor((r.at - from) / bucketMs);
    if (i < 0) continue;
    while (counts.length <= i) counts.push(0);
    counts[i]!++;
  }
  return counts.map((c) => (c * 1000) / bucketMs);
}
