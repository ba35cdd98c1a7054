/**
 * Where a write's events sit in the deployment's JetStream stream, so a caller can read its own
 * writes in a service that learns of them by event (the projects service's copies of groups, the
 * groups service's copy of projects).
 *
 * A position is the stream sequence JetStream gave an event when the outbox relay published it,
 * kept per *context* (the second token of the event's logical subject: `groups` for
 * `canopy.groups.member.added`): a consumer waits only for the contexts its subjects read, so a
 * backlog of auth events never holds up a reader of groups events. Within a context the highest
 * sequence stands for all lower ones: a consumer that has applied everything of its filter up to it
 * has applied every earlier write as well.
 *
 * The path a position travels:
 * 1. a service's transaction records events; after COMMIT the relay publishes them and JetStream
 *    answers each with its sequence (events/outbox.ts, events/after-commit.ts);
 * 2. the service's gRPC answer carries them in the `canopy-event-positions` trailer, with the users
 *    the events concern (an added member, say) in `canopy-event-users` (grpc/server.ts);
 * 3. the gateway keeps them in Redis for the caller and those users, briefly, and sends them as
 *    `canopy-read-after` on their next calls to any service (gateway/src/http/recent-writes.ts);
 * 4. a service with durable consumers of that context holds the call until its consumers have
 *    applied the stream up to there, for a bounded time (events/consumer-progress.ts).
 */

/** Context (`groups`, `auth`, ...) -> the highest stream sequence of its events. */
export type EventPositions = Map<string, number>;

/** What a call's or a request's writes put on the stream, and whom they concern besides the caller. */
export interface WrittenEvents {
  positions: EventPositions;
  users: Set<number>;
}

export const EVENT_POSITIONS_TRAILER = "canopy-event-positions";
export const EVENT_USERS_TRAILER = "canopy-event-users";
export const READ_AFTER_HEADER = "canopy-read-after";

/** More users than this in one answer are not named: the caller's own position still holds. */
const MAX_NAMED_USERS = 100;
/** Contexts a header may name; more is not a header Canopy wrote. */
const MAX_CONTEXTS = 16;
const CONTEXT = /^[a-z][a-z0-9_]{0,31}$/;

export const emptyWritten = (): WrittenEvents => ({ positions: new Map(), users: new Set() });

/** `canopy.groups.member.added` -> `groups`. */
export function contextOfSubject(subject: string): string {
  return subject.split(".")[1] ?? "";
}

/** Raises `into`'s positions to `from`'s where `from` is further; returns `into`. */
export function mergePositions(into: EventPositions, from: EventPositions | undefined): EventPositions {
  for (const [ctx, seq] of from ?? []) if (seq > (into.get(ctx) ?? 0)) into.set(ctx, seq);
  return into;
}

/** `auth:12,groups:340`, or "" for none. */
export function formatPositions(positions: EventPositions): string {
  return [...positions]
    .filter(([, seq]) => seq > 0)
    .map(([ctx, seq]) => `${ctx}:${seq}`)
    .join(",");
}

/** The positions a header or trailer holds; anything malformed counts as none (it only costs a wait). */
export function parsePositions(value: unknown): EventPositions {
  const positions: EventPositions = new Map();
  if (typeof value !== "string" || !value) return positions;
  const parts = value.split(",");
  if (parts.length > MAX_CONTEXTS) return positions;
  for (const part of parts) {
    const [ctx, raw] = part.split(":");
    if (!ctx || !CONTEXT.test(ctx) || !raw || !/^\d{1,15}$/.test(raw)) return new Map();
    mergePositions(positions, new Map([[ctx, Number(raw)]]));
  }
  return positions;
}

/** `5,7`: the users an answer's events concern (at most 100 named). */
export function formatUsers(users: Set<number>): string {
  return [...users]
    .filter((id) => id > 0)
    .slice(0, MAX_NAMED_USERS)
    .join(",");
}

export function parseUsers(value: unknown): number[] {
  if (typeof value !== "string" || !value) return [];
  return value
    .split(",")
    .slice(0, MAX_NAMED_USERS)
    .filter((id) => /^\d{1,15}$/.test(id))
    .map(Number)
    .filter((id) => id > 0);
}
