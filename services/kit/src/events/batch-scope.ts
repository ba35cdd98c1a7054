import type { events } from "@canopy/protos";

/** What a handler knows of an event besides the event itself. */
export interface EventMeta {
  /** The event's place in the stream (the hooks service orders a hook's deliveries by it). */
  streamSequence: number;
  /** The transaction's batch (see BatchScope). */
  batch: BatchScope;
}

/**
 * The events one transaction applies (a batch, or a single event when a batch is applied again
 * event by event), for handlers that work set-wise: what they read once for all of them (`memo`,
 * `events`), and statements that write for all of them at the end (`beforeCommit`), run in order
 * after the last handler and before COMMIT.
 */
export class BatchScope {
  readonly memo = new Map<string, unknown>();
  private readonly finishers = new Map<string, () => Promise<void>>();

  constructor(
    /** The batch's events the handler runs for, in stream order. */
    readonly events: events.Event[],
  ) {}

  /** Runs `finish` once before the batch commits (the first registration under `key` counts). */
  beforeCommit(key: string, finish: () => Promise<void>): void {
    if (!this.finishers.has(key)) this.finishers.set(key, finish);
  }

  async finish(): Promise<void> {
    for (const finish of this.finishers.values()) await finish();
  }
}
