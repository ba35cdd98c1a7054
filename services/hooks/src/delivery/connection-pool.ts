/**
 * Kept-alive connections to receivers. A delivery on a new connection pays a TCP (and TLS)
 * handshake, which on a busy instance cost more CPU than the rest of the delivery; most receivers
 * take many deliveries, so connections are used again.
 *
 * The URL guard decides for every request where it may connect, so a kept connection must never
 * carry a request that was checked to other addresses: the pool's key (Node's agent name: host,
 * port, TLS settings) also holds the request's `pin`, the addresses its own check allowed, or "name"
 * for a request the guard let connect by name. A change of settings or of DNS that moves the check
 * to other addresses so reaches a connection of its own.
 */
import http from "node:http";
import https from "node:https";
import type { ConnectionPlan } from "./url-guard";

/** Idle connections are closed before the usual server keep-alive timeouts (Node's 5 s, nginx's 75 s). */
const IDLE_MS = 4_000;
/**
 * Idle connections kept per receiver (host, port, addresses, TLS settings): as many as a replica's
 * workers send to at once (CANOPY_HOOK_WORKERS x the runs of a claim, 4 x 8 by default), so that a
 * busy receiver's connections are not closed and opened again between two claims.
 */
const IDLE_PER_RECEIVER = 32;

type PinnedOptions = http.RequestOptions & { pin?: string };

class PinnedHttpAgent extends http.Agent {
  override getName(options?: PinnedOptions): string {
    return `${super.getName(options)}|${options?.pin ?? ""}`;
  }
}

class PinnedHttpsAgent extends https.Agent {
  override getName(options?: PinnedOptions & https.RequestOptions): string {
    return `${super.getName(options)}|${options?.pin ?? ""}`;
  }
}

const agentOptions = {
  keepAlive: true,
  timeout: IDLE_MS,
  maxFreeSockets: IDLE_PER_RECEIVER,
  scheduling: "lifo" as const,
};

export const KEPT_ALIVE = {
  http: new PinnedHttpAgent(agentOptions),
  https: new PinnedHttpsAgent(agentOptions),
};

/** The part of a connection's identity the guard decided: its checked addresses, or "name". */
export const pinOf = (plan: ConnectionPlan): string =>
  plan.candidates ? plan.candidates.map((c) => c.address).join(",") : "name";

const DROPPED = new Set(["ECONNRESET", "EPIPE", "ECONNABORTED"]);

/**
 * Whether a request failed because the kept connection it went on had been closed by the
 * receiver (Node's `reusedSocket`): nothing was answered, and a new connection may try again.
 */
export const reusedAndDropped = (req: http.ClientRequest, error: NodeJS.ErrnoException): boolean =>
  req.reusedSocket && DROPPED.has(error.code ?? "");
