/**
 * Name resolution for the URL guard, and the `lookup` function that pins a connection to the
 * addresses the guard checked. Pinning is the DNS-rebinding protection: the HTTP client never
 * resolves the name again, so a second answer (a public address for the check, 127.0.0.1 for the
 * connection) cannot slip through.
 */
import { promises as dns, type LookupAddress } from "node:dns";
import type { LookupFunction } from "node:net";
import { LRUCache } from "lru-cache";

/** One address a name resolves to; `family` 4 or 6. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; rejects (any error) when the name does not resolve. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

// GitLab gives getaddrinfo 15 seconds (url_blocker.rb GETADDRINFO_TIMEOUT_SECONDS).
const RESOLVE_TIMEOUT_MS = 15_000;

/** The system resolver (getaddrinfo, as GitLab uses), bounded by GitLab's 15 s. */
export const systemResolver: Resolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("execution expired")), RESOLVE_TIMEOUT_MS);
  });
  try {
    const answers = await Promise.race([dns.lookup(hostname, { all: true, verbatim: true }), timeout]);
    return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
  } finally {
    clearTimeout(timer);
  }
};

type Answer = { addresses: ResolvedAddress[] } | { error: unknown };

/**
 * `resolve` with a short memory: lookups of one name at once share one query, and its answer (a
 * failure too) serves for `ttlMs`. Saves and deliveries of many hooks on one host would otherwise
 * each ask, and resolvers throttle bursts: on this project's CI machine 20 lookups at once took 5 s
 * and 100 took 20 s, past the API's deadline. Rebinding stays shut: a connection still goes only to
 * the addresses its own check saw (pinnedLookup).
 */
export function rememberingResolver(resolve: Resolver, ttlMs = 5_000): Resolver {
  const answers = new LRUCache<string, Answer>({
    max: 10_000,
    ttl: ttlMs,
    fetchMethod: (hostname) =>
      resolve(hostname).then(
        (addresses) => ({ addresses }),
        (error: unknown) => ({ error }),
      ),
  });
  return async (hostname) => {
    const answer = (await answers.fetch(hostname))!;
    if ("error" in answer) throw answer.error;
    return answer.addresses;
  };
}

/** The resolver the URL guard uses unless given another: the system's, remembered for 5 s. */
export const defaultResolver = rememberingResolver(systemResolver);

/**
 * The addresses a connection may use: the first of each family, as GitLab caps its candidates
 * ("so N black-holed IPs cannot force N * open_timeout"), in the resolver's order.
 */
export function connectionCandidates(addresses: ResolvedAddress[]): ResolvedAddress[] {
  const firstOfFamily = new Map<number, ResolvedAddress>();
  for (const a of addresses) if (!firstOfFamily.has(a.family)) firstOfFamily.set(a.family, a);
  return [...firstOfFamily.values()];
}

/**
 * A `lookup` for http.request/tls.connect answering only with `candidates`, whatever name it is
 * asked for. Node asks with `all: true` when it races families (autoSelectFamily).
 */
export function pinnedLookup(candidates: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = typeof options === "object" && options ? options.family : undefined;
    const wanted = candidates.filter((c) => !family || family === c.family);
    const usable = wanted.length ? wanted : candidates;
    if (typeof options === "object" && options?.all) {
      const all: LookupAddress[] = usable.map((c) => ({ address: c.address, family: c.family }));
      (callback as (err: null, addresses: LookupAddress[]) => void)(null, all);
      return;
    }
    const first = usable[0]!;
    callback(null, first.address, first.family);
  };
}
