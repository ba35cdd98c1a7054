import type { Pool } from "pg";
import { requestContext } from "../request-context";
import { contextOfSubject, mergePositions } from "./positions";

/**
 * Publish after commit, without every caller remembering to. `recordEvent` marks the transaction's
 * client with what it recorded; `withTransaction` asks here, after its COMMIT, whether the client
 * recorded anything, and if so waits for the pool's outbox relay to publish it. So a command that
 * replies after its transaction replies only once its events are on the stream (gateways have
 * dropped stale cache entries), and knows where on the stream they are: a call being served collects
 * those positions (and the users the events concern) in its request context, for its answer's
 * trailer (events/positions.ts). The relay's NOTIFY and poll remain the safety net for anything
 * this misses.
 */
export interface RecordedEvent {
  id: string;
  /** Logical subject (`canopy.groups.member.added`). */
  subject: string;
  /** Users whose own reads the event changes besides its actor's (an added member). */
  users: number[];
}

/** Publishes what is pending and says where the given events landed (event id -> stream sequence). */
export type Publisher = (ids: string[]) => Promise<Map<string, number>>;

/** The longest a call's committed write waits for its events to be published. */
export const PUBLISH_MAX_WAIT_MS = 2_000;

const recordedIn = new WeakMap<object, RecordedEvent[]>();
const publishers = new WeakMap<Pool, Publisher>();

export function markEventRecorded(tx: object, event: RecordedEvent): void {
  const list = recordedIn.get(tx);
  if (list) list.push(event);
  else recordedIn.set(tx, [event]);
}

/** The relay of `pool` publishes through this; `undefined` unregisters. */
export function setPublisher(pool: Pool, publish: Publisher | undefined): void {
  if (publish) publishers.set(pool, publish);
  else publishers.delete(pool);
}

/**
 * After COMMIT: publishes what `tx` recorded (if anything) and resolves once it is published. In a
 * call, the wait is bounded (`publishBy`, at most PUBLISH_MAX_WAIT_MS): a broker that does not take
 * the events in time leaves them to the relay, and the write answers without their positions.
 */
export async function publishRecorded(pool: Pool, tx: object): Promise<void> {
  const recorded = recordedIn.get(tx);
  if (!recorded) return;
  recordedIn.delete(tx);
  const publish = publishers.get(pool);
  if (!publish) return;
  const store = requestContext.getStore();
  const published = publish(recorded.map((e) => e.id));
  const sequences =
    store?.publishBy === undefined
      ? await published
      : await within(published, Math.min(PUBLISH_MAX_WAIT_MS, store.publishBy - Date.now()));
  const written = store?.written;
  if (!written || !sequences) return;
  for (const event of recorded) {
    const seq = sequences.get(event.id);
    if (seq === undefined) continue;
    mergePositions(written.positions, new Map([[contextOfSubject(event.subject), seq]]));
    for (const user of event.users) written.users.add(user);
  }
}

/** After ROLLBACK: the pooled client is reused, so it must not carry the mark into its next transaction. */
export function forgetRecorded(tx: object): void {
  recordedIn.delete(tx);
}

/** `work`'s result, or undefined when it takes longer than `ms` (it goes on in the background). */
async function within<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), Math.max(0, ms))),
  );
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
