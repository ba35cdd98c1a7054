import type { Pool } from "pg";

/**
 * Publish after commit, without every caller remembering to. `recordEvent` marks the transaction's
 * client; `withTransaction` asks here, after its COMMIT, whether the client recorded anything, and if
 * so waits for the pool's outbox relay to publish it. So a command that replies after its
 * transaction replies only once its events are on the stream (gateways have dropped stale cache
 * entries). The relay's NOTIFY and poll remain the safety net for anything this misses.
 */
const recordedIn = new WeakSet<object>();
const publishers = new WeakMap<Pool, () => Promise<void>>();

export function markEventRecorded(tx: object): void {
  recordedIn.add(tx);
}

/** The relay of `pool` publishes through this; `undefined` unregisters. */
export function setPublisher(pool: Pool, publish: (() => Promise<void>) | undefined): void {
  if (publish) publishers.set(pool, publish);
  else publishers.delete(pool);
}

/** After COMMIT: publishes what `tx` recorded (if anything) and resolves once it is published. */
export async function publishRecorded(pool: Pool, tx: object): Promise<void> {
  if (!recordedIn.delete(tx)) return;
  await publishers.get(pool)?.();
}

/** After ROLLBACK: the pooled client is reused, so it must not carry the mark into its next transaction. */
export function forgetRecorded(tx: object): void {
  recordedIn.delete(tx);
}
