import { propagation, ROOT_CONTEXT, SpanKind, trace } from "@opentelemetry/api";
import { headers as natsHeaders, type JetStreamClient, type NatsConnection } from "nats";
import type { Pool, PoolClient } from "pg";
import type { Logger } from "pino";
import { events } from "@canopy/protos";
import { setPublisher } from "./after-commit";
import { NOTIFY_CHANNEL_SQL } from "./outbox-record";
import type { EventStream } from "./stream";

const tracer = trace.getTracer("canopy-events");

/**
 * Publishes outbox rows to the deployment's stream in order, each with `Nats-Msg-Id` = event id so a row
 * published twice (a crash between publish and commit) is dropped by the stream's duplicate window.
 * Rows are claimed with FOR UPDATE SKIP LOCKED, so any number of replicas can run a relay.
 * Woken by NOTIFY from `recordEvent`, with a poll as a safety net.
 *
 * Each row keeps the stream sequence JetStream gave it (`stream_seq`), and the relay remembers the
 * ones it published for a moment: a write learns where its events landed (events/positions.ts)
 * without a further query when this process published them, and with one `FOR SHARE` read (which
 * waits for the other relay's commit) when another replica's relay took them first.
 */
/** The longest a write's lookup of where its events landed waits for another relay's locks. */
const LOOKUP_LOCK_TIMEOUT_MS = 1_000;

export class OutboxRelay {
  private listener?: PoolClient;
  /** This schema's NOTIFY channel, quoted. */
  private channel = "";
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  /** The one extra pass that follows the running one, shared by every kick that arrives meanwhile. */
  private queued?: Promise<void>;
  private stopped = false;
  private lastCleanup = 0;
  /** Event id -> stream sequence of what this relay published lately, until a write asks for it. */
  private readonly landed = new Map<string, number>();
  /** The last pass failed (NATS away or refusing): nothing is being published. */
  private failing = false;

  constructor(
    private readonly pool: Pool,
    private readonly nc: NatsConnection,
    private readonly stream: EventStream,
    private readonly log: Logger,
    private readonly options: { pollMs?: number; batch?: number; retainDays?: number } = {},
  ) {}

  async start(): Promise<void> {
    this.listener = await this.pool.connect();
    this.listener.on("notification", () => void this.kick());
    this.listener.on("error", (err) => this.log.warn({ err }, "outbox listener lost"));
    const { rows } = await this.listener.query<{ channel: string }>(
      `SELECT ${NOTIFY_CHANNEL_SQL} AS channel`,
    );
    this.channel = this.listener.escapeIdentifier(rows[0]!.channel);
    await this.listener.query(`LISTEN ${this.channel}`);
    this.timer = setInterval(() => void this.kick(), this.options.pollMs ?? 1_000);
    setPublisher(this.pool, (ids) => this.publishAndLocate(ids));
    await this.kick();
  }

  /** Publishes everything pending; resolves when what was pending at the call is published. */
  kick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      // The running pass may have read the outbox before the caller's rows committed: one more after it.
      this.queued ??= this.running.then(() => {
        this.queued = undefined;
        return this.kick();
      });
      return this.queued;
    }
    this.running = this.drain()
      .then(() => {
        this.failing = false;
      })
      .catch((err) => {
        this.failing = true;
        this.log.warn({ err }, "outbox relay pass failed; will retry");
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Publishes what is pending, then says where each of `ids` landed (those it can find). */
  async publishAndLocate(ids: string[]): Promise<Map<string, number>> {
    await this.kick();
    const found = new Map<string, number>();
    const missing: string[] = [];
    for (const id of ids) {
      const seq = this.landed.get(id);
      if (seq === undefined) missing.push(id);
      else {
        found.set(id, seq);
        this.landed.delete(id);
      }
    }
    // While our relay fails (NATS away) no other replica's relay is publishing either: no lookup.
    if (!missing.length || this.stopped || this.failing) return found;
    // Another replica's relay took them: FOR SHARE waits until its transaction, which publishes them
    // before it commits, is over. A row still without a sequence then was not published (NATS down:
    // the relay retries, and the write answers without a position, as it answers without its event).
    // The wait is bounded (LOOKUP_LOCK_TIMEOUT): a relay that locked the rows and then lost the
    // broker holds them until its publish times out (5 s), and every write meanwhile would hold a
    // pooled connection that long, until the pool ran dry (the fault suite's NATS scenario: writes
    // answered 503 at their deadline when NATS stopped).
    const client = await this.pool.connect().catch(() => undefined);
    if (!client) return found;
    try {
      await client.query("BEGIN");
      await client.query(`SET LOCAL lock_timeout = ${LOOKUP_LOCK_TIMEOUT_MS}`);
      const { rows } = await client.query<{ id: string; stream_seq: number | null }>(
        "SELECT id, stream_seq FROM outbox WHERE id = ANY($1::uuid[]) FOR SHARE",
        [missing],
      );
      await client.query("COMMIT");
      for (const row of rows) if (row.stream_seq !== null) found.set(row.id, row.stream_seq);
    } catch (err) {
      await client.query("ROLLBACK").catch(() => undefined);
      this.log.warn({ err }, "could not read where events were published");
    } finally {
      client.release();
    }
    return found;
  }

  private rememberLanded(id: string, seq: number) {
    this.landed.set(id, seq);
    // Events no write asks for (recorded outside withTransaction) must not pile up.
    if (this.landed.size > 10_000)
      for (const key of [...this.landed.keys()].slice(0, 1_000)) this.landed.delete(key);
  }

  /**
   * One outbox row to the stream; its stream sequence. The relay runs in no request's context (a
   * timer, a NOTIFY, or whichever write kicked it): the publish span continues the trace of the write
   * that recorded the event, and the message's headers carry the publish span on to the consumers.
   */
  private async publishRow(js: JetStreamClient, row: { id: string; subject: string; envelope: Buffer }) {
    const recorded = propagation.extract(ROOT_CONTEXT, events.Event.decode(row.envelope).traceContext);
    const span = tracer.startSpan(
      `publish ${row.subject}`,
      { kind: SpanKind.PRODUCER, attributes: { "messaging.system": "nats", "messaging.message.id": row.id } },
      recorded,
    );
    const h = natsHeaders();
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(recorded, span), carrier);
    for (const [k, v] of Object.entries(carrier)) h.set(k, v);
    try {
      // A duplicate (published before a crash lost the mark) answers its first sequence.
      const ack = await js.publish(this.stream.subject(row.subject), row.envelope, {
        msgID: row.id,
        headers: h,
      });
      return ack.seq;
    } finally {
      span.end();
    }
  }

  private async drain(): Promise<void> {
    const js = this.nc.jetstream();
    const batch = this.options.batch ?? 100;
    for (;;) {
      // Most wake-ups find nothing left (a NOTIFY and a kick for the same event): one cheap read
      // instead of a locking transaction.
      const pending = await this.pool.query("SELECT 1 FROM outbox WHERE published_at IS NULL LIMIT 1");
      if (!pending.rowCount) break;
      const client = await this.pool.connect();
      let count = 0;
      try {
        // The "published" mark need not wait for the disk: if a crash loses it, the row is published
        // again and JetStream drops the duplicate by its Nats-Msg-Id (consumers are idempotent too).
        await client.query("BEGIN; SET LOCAL synchronous_commit = off");
        const { rows } = await client.query<{ seq: number; id: string; subject: string; envelope: Buffer }>(
          `SELECT seq, id, subject, envelope FROM outbox WHERE published_at IS NULL
           ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
          [batch],
        );
        // Published without waiting for each ack (one round trip per batch, not per event): the
        // requests go out on one connection in call order, so the stream stores them in outbox order.
        // Should one fail, only the rows before it are marked; the rest are offered again (a
        // duplicate answers its first sequence), so no event is ever marked ahead of one that failed.
        // The later ones were sent all the same: when the server refuses one message but takes the
        // next (one too large; a lost connection fails them all), the stream holds those ahead of it.
        const settled = await Promise.allSettled(rows.map((row) => this.publishRow(js, row)));
        const failedAt = settled.findIndex((r) => r.status === "rejected");
        const landed = failedAt < 0 ? rows.length : failedAt;
        const sequences = settled.slice(0, landed).map((r) => (r as PromiseFulfilledResult<number>).value);
        rows.slice(0, landed).forEach((row, i) => this.rememberLanded(row.id, sequences[i]!));
        if (landed) {
          await client.query(
            `UPDATE outbox SET published_at = now(), stream_seq = landed.stream_seq
             FROM unnest($1::bigint[], $2::bigint[]) AS landed (seq, stream_seq) WHERE outbox.seq = landed.seq`,
            [rows.slice(0, landed).map((r) => r.seq), sequences],
          );
        }
        if (failedAt >= 0) {
          await client.query("COMMIT");
          throw (settled[failedAt] as PromiseRejectedResult).reason;
        }
        await client.query("COMMIT");
        count = rows.length;
      } catch (err) {
        await client.query("ROLLBACK").catch(() => undefined);
        throw err;
      } finally {
        client.release();
      }
      if (count < batch) break;
    }
    if (Date.now() - this.lastCleanup < 3_600_000) return;
    this.lastCleanup = Date.now();
    const retainDays = this.options.retainDays ?? 7;
    await this.pool.query(`DELETE FROM outbox WHERE published_at < now() - make_interval(days => $1)`, [
      retainDays,
    ]);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    setPublisher(this.pool, undefined);
    clearInterval(this.timer);
    await this.queued;
    await this.running;
    if (this.listener) {
      await this.listener.query(`UNLISTEN ${this.channel}`).catch(() => undefined);
      this.listener.release();
    }
  }
}
