import { Gauge } from "prom-client";
import type { JetStreamManager } from "nats";
import type { Pool } from "pg";
import { registry } from "../metrics";

/**
 * How far behind the event pipeline is, read when Prometheus scrapes rather than kept up to date by
 * the relay and consumers: a stuck relay or a consumer that stopped pulling would otherwise stop
 * updating its own lag gauge, which is exactly the moment the gauge matters.
 *
 * Each running service registers where to look (its outbox; its durable consumers); several services
 * in one process (tests) each have their own label value. A source that does not answer within
 * PROBE_TIMEOUT_MS is left out of that scrape instead of holding the whole scrape up.
 */
const PROBE_TIMEOUT_MS = 1_000;

type OutboxLag = { pending: number; oldestSeconds: number };
type ConsumerLag = { pending: number; ackPending: number };

const outboxes = new Map<string, () => Promise<OutboxLag>>();
const consumers = new Map<string, () => Promise<ConsumerLag>>();

const within = <T>(probe: () => Promise<T>): Promise<T | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), PROBE_TIMEOUT_MS);
  });
  return Promise.race([probe().catch(() => undefined), timeout]).finally(() => clearTimeout(timer));
};

/**
 * Runs every probe of `sources` and hands each answer to `set`, the gauges reset first. Each gauge of
 * the group collects through it: the registry asks them all at once, and all wait for the one pass.
 */
function refresher<T>(sources: Map<string, () => Promise<T>>, set: (label: string, value: T) => void) {
  let running: Promise<void> | undefined;
  const gauges: Gauge[] = [];
  const pass = async () => {
    const answers = await Promise.all(
      [...sources].map(async ([label, probe]) => [label, await within(probe)] as const),
    );
    for (const gauge of gauges) gauge.reset();
    for (const [label, value] of answers) if (value !== undefined) set(label, value);
  };
  return {
    gauges,
    collect: () => (running ??= pass().finally(() => (running = undefined))),
  };
}

const outboxLag = refresher(outboxes, (service, lag) => {
  outboxPending.set({ service }, lag.pending);
  outboxOldest.set({ service }, lag.oldestSeconds);
});
const outboxPending = new Gauge({
  name: "canopy_outbox_pending_events",
  help: "Events recorded in a service's outbox and not yet published to JetStream, by service",
  labelNames: ["service"] as const,
  registers: [registry],
  collect: outboxLag.collect,
});
const outboxOldest = new Gauge({
  name: "canopy_outbox_oldest_pending_seconds",
  help: "Age of the oldest unpublished outbox event (0 when none), by service",
  labelNames: ["service"] as const,
  registers: [registry],
  collect: outboxLag.collect,
});
outboxLag.gauges.push(outboxPending, outboxOldest);

const consumerLag = refresher(consumers, (consumer, lag) => {
  consumerPending.set({ consumer }, lag.pending);
  consumerAckPending.set({ consumer }, lag.ackPending);
});
const consumerPending = new Gauge({
  name: "canopy_consumer_pending_messages",
  help: "Messages in the stream a durable consumer has not been delivered yet (JetStream num_pending), by consumer",
  labelNames: ["consumer"] as const,
  registers: [registry],
  collect: consumerLag.collect,
});
const consumerAckPending = new Gauge({
  name: "canopy_consumer_ack_pending_messages",
  help: "Messages delivered to a durable consumer and not yet acknowledged, by consumer",
  labelNames: ["consumer"] as const,
  registers: [registry],
  collect: consumerLag.collect,
});
consumerLag.gauges.push(consumerPending, consumerAckPending);

/** Reports `service`'s outbox lag on scrapes until the returned function is called. */
export function watchOutbox(service: string, pool: Pool): () => void {
  const probe = async (): Promise<OutboxLag> => {
    // The partial index outbox_unpublished holds exactly these rows: cheap however large the outbox.
    const { rows } = await pool.query<{ pending: string; oldest: number | null }>(
      `SELECT count(*) AS pending, extract(epoch FROM now() - min(created_at))::float8 AS oldest
         FROM outbox WHERE published_at IS NULL`,
    );
    return { pending: Number(rows[0]!.pending), oldestSeconds: Math.max(0, rows[0]!.oldest ?? 0) };
  };
  outboxes.set(service, probe);
  return () => {
    if (outboxes.get(service) === probe) outboxes.delete(service);
  };
}

/** Reports the lag of durable consumer `name` of `stream` on scrapes until the returned function is called. */
export function watchConsumer(jsm: JetStreamManager, stream: string, name: string): () => void {
  const probe = async (): Promise<ConsumerLag> => {
    const info = await jsm.consumers.info(stream, name);
    return { pending: info.num_pending, ackPending: info.num_ack_pending };
  };
  consumers.set(name, probe);
  return () => {
    if (consumers.get(name) === probe) consumers.delete(name);
  };
}
