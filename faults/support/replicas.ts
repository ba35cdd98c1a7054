/**
 * One replica of a service, found by its process, killed with SIGKILL (no shutdown of any kind: open
 * calls, transactions and HTTP connections die with it) and watched while the launcher starts it
 * again (CANOPY_RESTART_EXITED=1) until its readiness endpoint answers.
 */
import { readFileSync } from "node:fs";
import http from "node:http";
import type { Stack } from "../../e2e/test/support/stack";
import { pause } from "./world";

export interface Replica {
  service: string;
  pid: number;
  /** Its health side port: the same after the restart (the launcher gives it the same environment). */
  healthPort: number;
}

/** The service's first replica as it runs now. */
export function replicaOf(stack: Stack, service: string): Replica {
  const pid = stack.pids[service]?.[0];
  if (!pid) throw new Error(`no running replica of ${service}`);
  const environ = readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  const port = environ.find((e) => e.startsWith("CANOPY_HEALTH_PORT="))?.split("=")[1];
  if (!port) throw new Error(`${service} (pid ${pid}) has no CANOPY_HEALTH_PORT`);
  return { service, pid, healthPort: Number(port) };
}

const ready = async (port: number) => {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/-/readiness`, { signal: AbortSignal.timeout(2_000) });
    return res.status === 200;
  } catch {
    return false;
  }
};

/** Requests (gRPC calls, or HTTP requests for the gateway) the process on `port` has served. */
async function served(port: number): Promise<number> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2_000) });
    return (await res.text())
      .split("\n")
      .filter((line) => /^canopy_(grpc_server|http_server)_requests_total\{/.test(line))
      .reduce((sum, line) => sum + Number(line.split(" ").pop()), 0);
  } catch {
    return 0;
  }
}

export interface Restart {
  /** From SIGKILL until the new process answers ready: mostly Node starting the service. */
  readyMs: number;
  /** From ready until it has served a request of the load: its callers found it again. */
  servingMs: number;
}

/**
 * SIGKILL, then how long until a new process answers ready on the replica's health port (the
 * launcher starts it as soon as the old one is gone), and until it serves the load again.
 */
export async function killAndAwaitRestart(
  stack: Stack,
  replica: Replica,
  probePath: string,
  timeoutMs = 60_000,
): Promise<Restart> {
  // A request of its own on a new connection each time: clients that keep their connections alive
  // stay on the other gateway, and only a new connection can reach the restarted one. Its path
  // reaches the killed service and no cached answer (the load alone may be served from the caches).
  const probe = () =>
    freshRequest(`${stack.url}${probePath.replace("{n}", String(Date.now()))}`, stack.rootToken);
  const killed = Date.now();
  const late = () => Date.now() - killed > timeoutMs;
  process.kill(replica.pid, "SIGKILL");
  for (;;) {
    const now = stack.pids[replica.service] ?? [];
    if (!now.includes(replica.pid) && now.length === stack.replicas && (await ready(replica.healthPort)))
      break;
    if (late()) throw new Error(`${replica.service} not ready again in ${timeoutMs} ms`);
    await pause(50);
  }
  const readyAt = Date.now();
  while ((await served(replica.healthPort)) === 0) {
    await probe();
    if (late()) throw new Error(`${replica.service} served nothing in ${timeoutMs} ms`);
    await pause(50);
  }
  return { readyMs: readyAt - killed, servingMs: Date.now() - readyAt };
}

/** One GET on a connection of its own (not kept alive); its status, 0 without an answer. */
function freshRequest(url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = http.get(
      url,
      { agent: false, headers: { "PRIVATE-TOKEN": token }, timeout: 5_000 },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode ?? 0));
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(0));
  });
}
