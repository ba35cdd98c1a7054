import type { JetStreamManager } from "nats";
import type { Logger } from "pino";
import { metrics } from "../metrics";
import { contextOfSubject, type EventPositions } from "./positions";

/**
 * How far a service's durable consumers have applied the event stream, so a call can wait until the
 * caller's own writes have reached this service's copies ("read your writes", events/positions.ts).
 *
 * The measure is JetStream's *ack floor* of each durable consumer: the stream sequence up to which
 * every message of the consumer's filter is acknowledged. The kit's consumer acks an event only
 * after the transaction that applied it committed (events/consumer.ts), so the floor never runs
 * ahead of what a query here can read. JetStream keeps it for the consumer as a whole, so it is the
 * same for every replica, it is contiguous however replicas interleave and however often a failed
 * event is redelivered, and it knows which sequences belong to the filter at all. A high-water mark
 * in PostgreSQL would have none of that: replicas apply out of order, and a table cannot tell a
 * sequence outside the filter from one not yet delivered.
 *
 * A consumer whose filter has nothing pending and nothing unacknowledged has applied all of the
 * stream there is, so it has caught up with every position asked before the question: a position
 * comes from JetStream's answer to the publish, so its message is in the stream by then.
 *
 * Hot path: a call without positions costs nothing; a position at or below what this process
 * already knows a consumer reached costs a comparison. Only a call that is ahead of that asks
 * JetStream, and every call waiting on one consumer shares the same question: at most one
 * `CONSUMER.INFO` in flight per consumer, repeated at 1, 2, 4 .. 20 ms while anyone waits, and at
 * once when this replica has just applied an event of it.
 */
export class ConsumerProgress {
  private readonly consumers: Tracked[];

  constructor(
    private readonly jsm: JetStreamManager,
    private readonly streamName: string,
    consumers: { name: string; subjects: string[] }[],
    private readonly log: Logger,
  ) {
    this.consumers = consumers.map((c) => new Tracked(c.name, c.subjects));
  }

  /**
   * Resolves once every consumer reading a context named in `positions` has applied the stream up
   * to that context's position, or after `maxMs` (the call then answers from what is applied).
   */
  async waitFor(positions: EventPositions, maxMs: number): Promise<"current" | "caught_up" | "timed_out"> {
    const waits: Promise<boolean>[] = [];
    const started = process.hrtime.bigint();
    for (const consumer of this.consumers) {
      let seq = 0;
      for (const [context, position] of positions) if (consumer.reads(context)) seq = Math.max(seq, position);
      if (seq > consumer.through) waits.push(this.waitOne(consumer, seq, maxMs));
    }
    if (!waits.length) return "current";
    const outcome = (await Promise.all(waits)).every(Boolean) ? "caught_up" : "timed_out";
    metrics.readAfterWaitSeconds.observe({ outcome }, Number(process.hrtime.bigint() - started) / 1e9);
    return outcome;
  }

  /** This replica has just applied (and acked) an event of `name`: ask again now rather than later. */
  nudge(name: string): void {
    const consumer = this.consumers.find((c) => c.name === name);
    if (consumer?.waiters.size) consumer.wake?.();
  }

  private waitOne(consumer: Tracked, seq: number, maxMs: number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        seq,
        settle: (caughtUp) => {
          clearTimeout(timer);
          consumer.waiters.delete(waiter);
          resolve(caughtUp);
        },
      };
      // Settled by the poll or by this timer, whichever comes first (settle runs only after both exist).
      const timer = setTimeout(() => waiter.settle(false), Math.max(0, maxMs));
      consumer.waiters.add(waiter);
      if (consumer.polling) consumer.wake?.();
      else void this.poll(consumer);
    });
  }

  private async poll(consumer: Tracked): Promise<void> {
    consumer.polling = true;
    let delayMs = 1;
    try {
      while (consumer.waiters.size) {
        // Every position asked before the question is in the stream by the time JetStream answers it.
        const asked = [...consumer.waiters];
        let info;
        try {
          info = await this.jsm.consumers.info(this.streamName, consumer.name);
        } catch (err) {
          // Progress cannot be known: the calls answer from what is applied, as without a position.
          this.log.warn({ err, consumer: consumer.name }, "consumer progress unknown; not waiting");
          for (const waiter of asked) waiter.settle(false);
          continue;
        }
        let through = info.ack_floor.stream_seq;
        if (info.num_pending === 0 && info.num_ack_pending === 0) {
          for (const waiter of asked) through = Math.max(through, waiter.seq);
        }
        consumer.through = Math.max(consumer.through, through);
        for (const waiter of [...consumer.waiters]) if (waiter.seq <= consumer.through) waiter.settle(true);
        if (!consumer.waiters.size) break;
        const woken = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), delayMs);
          consumer.wake = () => {
            clearTimeout(timer);
            resolve(true);
          };
        });
        consumer.wake = undefined;
        delayMs = woken ? 1 : Math.min(delayMs * 2, 20);
      }
    } finally {
      consumer.polling = false;
    }
  }
}

interface Waiter {
  seq: number;
  settle(caughtUp: boolean): void;
}

/** One durable consumer: the contexts it reads, how far it is known to be, and who waits on it. */
class Tracked {
  /** Every event of its filter up to this stream sequence is applied (only ever rises). */
  through = 0;
  readonly waiters = new Set<Waiter>();
  polling = false;
  wake?: () => void;
  private readonly contexts: Set<string>;

  constructor(
    readonly name: string,
    subjects: string[],
  ) {
    this.contexts = new Set(subjects.map(contextOfSubject));
  }

  /** `canopy.groups.>` reads `groups`; a wildcard in the context token reads every context. */
  reads(context: string): boolean {
    return this.contexts.has(context) || this.contexts.has("*") || this.contexts.has(">");
  }
}
