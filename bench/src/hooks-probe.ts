// Where bench:hooks' events wait, sampled once a second while the load runs: the groups outbox
// (written, not yet published), the hooks service's durable consumer (published, not yet turned
// into deliveries), the deliveries table (queued for the workers), what the receiver has seen, and
// the machine's load average. A stage whose queue grows is the one that cannot keep up.
import os from "node:os";
import { connect, type NatsConnection } from "nats";
import { Client } from "pg";

export interface Sample {
  at: number;
  /** Events committed by groups and not yet published to JetStream. */
  outbox: number;
  /** Events in the stream the hooks consumer has not acked (pending + in its hands). */
  consumer: number;
  /** Deliveries not yet sent (or in flight). */
  queued: number;
  received: number;
  load1: number;
}

export interface Probe {
  sample(received: number): Promise<Sample>;
  close(): Promise<void>;
}

const CONSUMER = "hooks-events"; // services/hooks/src/events/hook-events.ts

export async function openProbe(databaseUrl: string, stream: string): Promise<Probe> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  const nc: NatsConnection = await connect({
    servers: (process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222").split(","),
  });
  const jsm = await nc.jetstreamManager();
  return {
    sample: async (received) => {
      const { rows } = await db.query<{ outbox: number; queued: number }>(
        `SELECT (SELECT count(*) FROM groups.outbox WHERE published_at IS NULL)::int AS outbox,
                (SELECT count(*) FROM hooks.deliveries)::int AS queued`,
      );
      const info = await jsm.consumers.info(stream, CONSUMER).catch(() => undefined);
      return {
        at: Date.now(),
        outbox: rows[0]!.outbox,
        consumer: info ? info.num_pending + info.num_ack_pending : NaN,
        queued: rows[0]!.queued,
        received,
        load1: os.loadavg()[0]!,
      };
    },
    close: async () => {
      await db.end();
      await nc.close();
    },
  };
}
