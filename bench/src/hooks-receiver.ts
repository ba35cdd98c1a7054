// bench:hooks' webhook receiver, in a process of its own (forked by hooks.ts) so the load generator's
// timers and fetches do not delay when a delivery is seen. It answers every POST 200 at once and keeps,
// per delivery, the hook (the URL's last segment), its Idempotency-Key, the event's match key and the
// time the request arrived. The parent asks over IPC: "count" while it waits, "dump" at the end,
// "reset" after the warm-up.
import http from "node:http";
import { performance } from "node:perf_hooks";

/** One request as the receiver saw it. */
export interface Receipt {
  hook: string;
  key: string;
  /** What the delivery says happened (hooks-report.ts matches it to the API call). */
  match: string;
  /** Wall-clock milliseconds with sub-millisecond precision (the same clock as the parent's). */
  at: number;
}

export type ReceiverRequest = { type: "count" | "dump" | "reset" };
export type ReceiverReply =
  | { type: "listening"; port: number }
  | { type: "count"; count: number }
  | { type: "dump"; receipts: Receipt[] };

/** Wall-clock ms, sub-millisecond: performance.now() does not step with NTP within a run. */
export const nowMs = () => performance.timeOrigin + performance.now();

/**
 * What a delivery is about, the same string hooks-load.ts records for the call that caused it:
 * `<event>:<group path>`, the subgroup's path for a subgroup event (`path`) and the group's for
 * a member event (`group_path`).
 */
export function matchOf(body: Record<string, unknown>): string {
  return `${String(body.event_name)}:${String(body.path ?? body.group_path)}`;
}

function serve() {
  let receipts: Receipt[] = [];
  const server = http.createServer((req, res) => {
    const at = nowMs();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      res.writeHead(200, { "Content-Type": "text/plain" }).end("ok");
      let match = "unreadable";
      try {
        match = matchOf(JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>);
      } catch {
        // counted, shown as unmatched
      }
      receipts.push({
        hook: (req.url ?? "").split("/").pop() ?? "",
        key: String(req.headers["idempotency-key"] ?? ""),
        match,
        at,
      });
    });
  });
  // Keep-alive longer than the sender's idle pool, so a reused socket is never closed under it.
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number };
    process.send!({ type: "listening", port } satisfies ReceiverReply);
  });
  process.on("message", (m: ReceiverRequest) => {
    if (m.type === "count") process.send!({ type: "count", count: receipts.length } satisfies ReceiverReply);
    else if (m.type === "reset") receipts = [];
    else if (m.type === "dump") process.send!({ type: "dump", receipts } satisfies ReceiverReply);
  });
  // The parent gone (a crash, Ctrl-C): nothing left to report to.
  process.on("disconnect", () => process.exit(0));
}

if (require.main === module) serve();
