/**
 * The SSRF guard: GitLab's URL blocker for webhooks (gems/gitlab-http url_blocker.rb with the
 * options WebHookService and the hook's public_url validation pass). Two entry points:
 *
 * - `checkHookUrl`, at save time: the same rules without DNS-rebinding enforcement, so a name that
 *   does not resolve is accepted (unless deny-all is on). The API answers a refusal with 422
 *   `{"error":"Invalid url given"}`; the reason is for the model error `is blocked: <reason>`.
 * - `planConnection`, before every connection the sender opens (each redirect hop too): the
 *   addresses to connect to, already checked. With DNS-rebinding protection on, the sender
 *   connects only to those; with it off, it connects by name as GitLab then does.
 *
 * Node's WHATWG URL parser already reads `http://2130706433/`, `http://0177.0.0.1/` and
 * `http://0x7f.1/` as 127.0.0.1, as getaddrinfo does for GitLab, so those are checked as the
 * loopback address they are.
 */
import { localAddressReason, machineAddresses, normalizeAddress, type IpAddress } from "./address-rules";
import { isAddressAllowed, isDomainAllowed, parseAllowlist } from "./allowlist";
import { connectionCandidates, defaultResolver, type ResolvedAddress, type Resolver } from "./resolver";

/** The application settings the guard reads (a subset of kit's ApplicationSettings). */
export interface OutboundRequestSettings {
  allowLocalRequestsFromWebHooksAndServices: boolean;
  outboundLocalRequestsWhitelist: readonly string[];
  dnsRebindingProtectionEnabled: boolean;
  denyAllRequestsExceptAllowed: boolean;
}

export interface UrlGuardOptions {
  settings: OutboundRequestSettings;
  /** Name resolution; the system resolver (remembered for a few seconds) by default. Tests inject one. */
  resolve?: Resolver;
  /** The instance's own external URL: requests to its exact scheme, host and port are allowed. */
  instanceUrl?: string;
  /** The machine's own addresses ("localhost" for GitLab); read from the interfaces by default. */
  localAddresses?: string[];
}

export type UrlCheck = { ok: true } | { ok: false; reason: string };

/** Where the sender connects for one request. */
export interface ConnectionPlan {
  url: URL;
  port: number;
  /** Addresses to connect to, already checked; null to connect by name (no pinning, as GitLab). */
  candidates: ResolvedAddress[] | null;
}

export type ConnectionCheck = { ok: true; plan: ConnectionPlan } | { ok: false; reason: string };

export const GUARD_REASONS = {
  invalidUri: "URI is invalid",
  schemes: "Only allowed schemes are http, https",
  hostname: "Hostname or IP address invalid",
  hostTooLong: "Host is too long (maximum is 1024 characters)",
  unresolvable: "Host cannot be resolved or invalid",
  notOnAllowList: "Requests to hosts and IP addresses not on the Allow List are denied",
} as const;

const MAX_HOST_LENGTH = 1024;
const blocked = (reason: string) => ({ ok: false as const, reason });

/** The URL as GitLab would parse it, or the reason it refuses it before resolving anything. */
export function parseHookUrl(raw: string): { ok: true; url: URL } | { ok: false; reason: string } {
  // The WHATWG parser silently drops CR/LF/tab; GitLab refuses a multi-line URL outright.
  if (/[\r\n]/.test(raw)) return blocked(GUARD_REASONS.invalidUri);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw.trim())?.[1]?.toLowerCase();
  if (scheme !== "http" && scheme !== "https") return blocked(GUARD_REASONS.schemes);
  // `http:/host` has no authority for GitLab's parser, though WHATWG would guess one.
  if (!/^[A-Za-z]+:\/\//.test(raw.trim())) return blocked(GUARD_REASONS.invalidUri);
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return blocked(GUARD_REASONS.invalidUri);
  }
  if (!url.hostname) return blocked(GUARD_REASONS.invalidUri);
  if (url.hostname.length > MAX_HOST_LENGTH) return blocked(GUARD_REASONS.hostTooLong);
  if (!hostAddress(url) && !/^[\p{L}\p{N}]/u.test(url.hostname)) return blocked(GUARD_REASONS.hostname);
  return { ok: true, url };
}

/** The port a URL connects to, defaults included. */
export const portOf = (url: URL) => (url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80);

/** The URL's host when it is an IP literal (brackets removed), else null. */
const hostAddress = (url: URL): IpAddress | null => normalizeAddress(url.hostname);

function isInstanceUrl(url: URL, instanceUrl: string | undefined): boolean {
  if (!instanceUrl) return false;
  const own = new URL(instanceUrl);
  return own.protocol === url.protocol && own.hostname === url.hostname && portOf(own) === portOf(url);
}

async function resolveHost(url: URL, resolve: Resolver): Promise<ResolvedAddress[]> {
  const literal = hostAddress(url);
  if (literal) return [{ address: literal.toString(), family: literal.kind() === "ipv4" ? 4 : 6 }];
  const answers = await resolve(url.hostname);
  if (!answers.length) throw new Error("no addresses");
  return answers;
}

/**
 * The blocker itself. `pinning` is DNS-rebinding enforcement: on for connections when the
 * setting is on, off at save time.
 */
async function evaluate(raw: string, options: UrlGuardOptions, pinning: boolean): Promise<ConnectionCheck> {
  const parsed = parseHookUrl(raw);
  if (!parsed.ok) return parsed;
  const { url } = parsed;
  const port = portOf(url);
  const { settings } = options;
  const allowLocal = settings.allowLocalRequestsFromWebHooksAndServices;
  const denyAll = settings.denyAllRequestsExceptAllowed;
  const byName = { ok: true as const, plan: { url, port, candidates: null } };
  // Nothing left to check: GitLab does not even resolve the name.
  if (!denyAll && !pinning && allowLocal) return byName;

  const allowlist = parseAllowlist(settings.outboundLocalRequestsWhitelist);
  const domainAllowed = isDomainAllowed(allowlist, url.hostname, port);
  let resolved: ResolvedAddress[];
  try {
    resolved = await resolveHost(url, options.resolve ?? defaultResolver);
  } catch {
    // An unresolvable name is refused only when something depends on its addresses.
    const enforce = !domainAllowed && (denyAll || pinning);
    return enforce ? blocked(GUARD_REASONS.unresolvable) : byName;
  }
  // An allowlisted domain is trusted by name, addresses unchecked and unpinned (as GitLab).
  if (domainAllowed) return byName;

  const addresses = resolved.map((r) => normalizeAddress(r.address)).filter((a): a is IpAddress => !!a);
  const checked = {
    ok: true as const,
    plan: { url, port, candidates: pinning ? connectionCandidates(resolved) : null },
  };
  // GitLab checks the allowlist against the first address only.
  if (addresses[0] && isAddressAllowed(allowlist, addresses[0], port)) return checked;
  if (isInstanceUrl(url, options.instanceUrl)) return checked;
  if (denyAll) return blocked(GUARD_REASONS.notOnAllowList);
  if (!allowLocal) {
    const reason = localAddressReason(addresses, options.localAddresses ?? machineAddresses());
    if (reason) return blocked(reason);
  }
  return checked;
}

/** Save-time check of a hook URL (interpolated, when it has URL variables). */
export async function checkHookUrl(raw: string, options: UrlGuardOptions): Promise<UrlCheck> {
  const result = await evaluate(raw, options, false);
  return result.ok ? { ok: true } : result;
}

/** Connect-time check: where to connect for `raw`, or why not. Run for every hop. */
export function planConnection(raw: string, options: UrlGuardOptions): Promise<ConnectionCheck> {
  return evaluate(raw, options, options.settings.dnsRebindingProtectionEnabled);
}
