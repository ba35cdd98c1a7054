import { LdapConnectionError, LdapDirectory, type LdapServer, type Timer } from "@canopy/kit";
import type { Deps } from "../deps";
import { claimDueChecks, dueBefore, releaseClaims, type ClaimedCheck } from "../store/ldap-checks";
import { applyLdapAccess, askDirectory } from "./ldap-access";

/** Users claimed per statement (tests pass smaller batches): a run holds one batch at a time. */
const BATCH = 100;

export interface LdapCheckRun {
  checked: number;
  blocked: number;
  unblocked: number;
  /** Providers whose directory could not be reached: their users were left as they were. */
  unreachable: string[];
}

/**
 * The scheduled LDAP user check (GitLab's LdapSyncWorker calling `Access.allowed?` for every LDAP
 * user): every user due (store/ldap-checks.ts: not checked within the interval, oldest first) is
 * looked up in their server's directory, and blocked or unblocked as the answer says (ldap-access.ts).
 *
 * Safe on any number of replicas at once: users are claimed in batches with FOR UPDATE SKIP LOCKED
 * and stamped as they are claimed, so each is checked by one run. One directory session per server
 * per run. A directory that cannot be reached changes nothing: its claimed users are given back
 * unchecked and the rest of its users are left for the next run.
 */
export async function checkDueLdapUsers(deps: Deps, options: { batch?: number } = {}): Promise<LdapCheckRun> {
  const run: LdapCheckRun = { checked: 0, blocked: 0, unblocked: 0, unreachable: [] };
  const servers = new Map(deps.config.CANOPY_LDAP_SERVERS.map((s) => [s.provider, s]));
  if (!servers.size) return run;
  const cutoff = await dueBefore(deps.pool, deps.config.CANOPY_LDAP_USER_CHECK_INTERVAL_SECONDS);
  const sessions = new Map<string, LdapDirectory>();
  try {
    for (;;) {
      const providers = [...servers.keys()];
      const batch = options.batch ?? BATCH;
      const claims = await claimDueChecks(deps.pool, providers, run.unreachable, cutoff, batch);
      if (!claims.length) break;
      await checkBatch(deps, claims, servers, sessions, run);
    }
  } finally {
    await Promise.all([...sessions.values()].map((d) => d.close()));
  }
  if (run.checked || run.unreachable.length) deps.log.info(run, "LDAP user check done");
  return run;
}

async function checkBatch(
  deps: Deps,
  claims: ClaimedCheck[],
  servers: Map<string, LdapServer>,
  sessions: Map<string, LdapDirectory>,
  run: LdapCheckRun,
) {
  const unchecked = new Set(claims);
  try {
    for (const claim of claims) {
      if (run.unreachable.includes(claim.provider)) continue;
      const server = servers.get(claim.provider)!;
      try {
        const directory = sessions.get(server.provider) ?? (await LdapDirectory.open(server, deps.log));
        sessions.set(server.provider, directory);
        const answer = await askDirectory(directory, claim.externUid);
        const { movedTo } = await applyLdapAccess(deps, claim, answer, server.activeDirectory);
        unchecked.delete(claim);
        run.checked++;
        if (movedTo === "ldap_blocked") run.blocked++;
        if (movedTo === "active") run.unblocked++;
      } catch (e) {
        if (!(e instanceof LdapConnectionError)) throw e;
        deps.log.warn(
          { provider: server.provider, err: e.message },
          "LDAP user check: directory unavailable, its users are left as they are",
        );
        run.unreachable.push(server.provider);
      }
    }
  } finally {
    await releaseClaims(deps.pool, [...unchecked]);
  }
}

/**
 * The check's timer, on every replica (claims keep replicas apart); the flag only keeps one replica
 * from starting a run while its previous one still runs. Also once right after start, so a replica
 * restarted more often than the interval still checks. No LDAP server, or an interval of 0: none.
 */
export function ldapUserCheckTimers(deps: Deps): Timer[] {
  const seconds = deps.config.CANOPY_LDAP_USER_CHECK_INTERVAL_SECONDS;
  if (!deps.config.CANOPY_LDAP_SERVERS.length || seconds <= 0) return [];
  let running: Promise<unknown> | undefined;
  return [
    {
      name: "ldap user check",
      everyMs: seconds * 1000,
      afterStart: true,
      run: () => (running ??= checkDueLdapUsers(deps).finally(() => (running = undefined))),
    },
  ];
}
