import http from "node:http";
import type { AddressInfo } from "node:net";
import { registry } from "./metrics";

/** A dependency the process needs to serve; it throws when the dependency does not answer. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<unknown>;
  /**
   * The process still serves without it, degraded (the gateway without Redis, anything without
   * NATS): reported, never a 503. A dependency every replica shares must not take them all out of
   * the load balancer at once when the process itself can still answer.
   */
  degradable?: boolean;
}

const CHECK_TIMEOUT_MS = 2_000;

async function runCheck({ name, check }: ReadinessCheck): Promise<[string, string]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([check(), timeout]);
    return [name, "ok"];
  } catch (err) {
    return [name, (err as Error).message || "failed"];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs every check; `failed` names the required ones that did not answer (a 503), `degraded` the
 * degradable ones (still a 200).
 */
export async function readiness(checks: ReadinessCheck[]) {
  const results = Object.fromEntries(await Promise.all(checks.map(runCheck)));
  const down = (degradable: boolean) =>
    checks.filter((c) => Boolean(c.degradable) === degradable && results[c.name] !== "ok").map((c) => c.name);
  const [failed, degraded] = [down(false), down(true)];
  const status = failed.length ? "failed" : degraded.length ? "degraded" : "ok";
  return { status, failed, degraded, checks: results };
}

const json = (res: http.ServerResponse, code: number, body: unknown) => {
  res.writeHead(code, { "Content-Type": "application/json" });
  res.end(JSON.stringify(body));
};

/**
 * The side port every process has: `/-/liveness` (the event loop answers), `/-/readiness` (its own
 * dependencies answer; 503 names those that do not, and while shutting down) and `/metrics`.
 * Loopback unless `host` says otherwise: metrics are not for the whole network.
 */
export async function startHealthServer(options: { port: number; checks: ReadinessCheck[]; host?: string }) {
  let stopping = false;
  const server = http.createServer(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path === "/-/liveness") return json(res, 200, { status: "ok" });
    if (path === "/-/readiness") {
      if (stopping)
        return json(res, 503, { status: "failed", failed: ["shutting_down"], degraded: [], checks: {} });
      const result = await readiness(options.checks);
      return json(res, result.failed.length ? 503 : 200, result);
    }
    if (path === "/metrics") {
      res.writeHead(200, { "Content-Type": registry.contentType });
      return res.end(await registry.metrics());
    }
    json(res, 404, { error: "404 Not Found" });
  });
  await new Promise<void>((resolve) => server.listen(options.port, options.host ?? "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Readiness answers 503 from now on, so load balancers stop sending traffic. */
    markStopping: () => {
      stopping = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
