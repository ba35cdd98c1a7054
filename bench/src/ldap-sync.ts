// How bench:ldap sees a sync finish: it polls the stack's database (the ldap service's sync state and
// the groups service's memberships) rather than the API, which shows neither the sync state (GitLab
// shows it only on web pages) nor a 5,000-member list in one page.
import type { Client } from "pg";

/** A sync's figures, in milliseconds from the request. */
export interface SyncTimes {
  /** Until the bench saw the sync `ready` with the memberships in place. */
  wallMs: number;
  /** A worker claimed it (the group's last_sync_at). */
  claimedMs: number;
  /** The groups service's transaction applying the command began (ldap_member_syncs.applied_at). */
  appliedMs: number;
  /** The ldap service's transaction taking the answer began (last_successful_update_at). */
  answeredMs: number;
}

const POLL_MS = 10;
const TIMEOUT_MS = 180_000;

interface State {
  status: string | null;
  generation: number;
  error: string | null;
  claimed: number | null;
  answered: number | null;
  applied: number | null;
  members: number;
}

async function state(db: Client, groupId: number): Promise<State> {
  const { rows } = await db.query<State>(
    `SELECT s.status, COALESCE(s.generation, 0)::int AS generation, s.error,
            extract(epoch FROM s.last_sync_at) * 1000 AS claimed,
            extract(epoch FROM s.last_successful_update_at) * 1000 AS answered,
            (SELECT extract(epoch FROM applied_at) * 1000 FROM groups.ldap_member_syncs
              WHERE namespace_id = $1) AS applied,
            (SELECT count(*)::int FROM groups.members WHERE namespace_id = $1) AS members
       FROM (SELECT 1) one LEFT JOIN ldap.group_syncs s ON s.group_id = $1`,
    [groupId],
  );
  const r = rows[0]!;
  return { ...r, claimed: num(r.claimed), answered: num(r.answered), applied: num(r.applied) };
}

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * Runs `trigger` (the sync request) and waits until a newer sync than before it is `ready` and the
 * group has `expectedMembers` direct members. A failed sync is an error with its reason.
 */
export async function waitForSync(
  db: Client,
  groupId: number,
  expectedMembers: number,
  trigger: () => Promise<void>,
): Promise<SyncTimes> {
  const before = (await state(db, groupId)).generation;
  const t0 = Date.now();
  await trigger();
  for (;;) {
    const s = await state(db, groupId);
    const now = Date.now();
    if (s.generation > before && s.status === "failed") throw new Error(`the sync failed: ${s.error}`);
    if (s.generation > before && s.status === "ready" && s.members === expectedMembers)
      return {
        wallMs: now - t0,
        claimedMs: (s.claimed ?? now) - t0,
        appliedMs: (s.applied ?? now) - t0,
        answeredMs: (s.answered ?? now) - t0,
      };
    if (now - t0 > TIMEOUT_MS)
      throw new Error(
        `no finished sync after ${TIMEOUT_MS} ms: ${JSON.stringify(s)} (${expectedMembers} expected)`,
      );
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/**
 * Waits until the ldap, projects and hooks services' copies of the group's memberships hold
 * `expectedMembers` rows: every member event of the sync has been consumed.
 */
export async function waitForLdapCopies(db: Client, groupId: number, expectedMembers: number) {
  const t0 = Date.now();
  for (;;) {
    const { rows } = await db.query<{ ldap: number; projects: number; hooks: number }>(
      `SELECT (SELECT count(*)::int FROM ldap.group_members WHERE namespace_id = $1) AS ldap,
              (SELECT count(*)::int FROM projects.group_members WHERE namespace_id = $1) AS projects,
              (SELECT count(*)::int FROM hooks.group_members WHERE namespace_id = $1) AS hooks`,
      [groupId],
    );
    const counts = rows[0]!;
    if (Object.values(counts).every((n) => n === expectedMembers)) return;
    if (Date.now() - t0 > TIMEOUT_MS)
      throw new Error(`the copies of the memberships did not catch up: ${JSON.stringify(counts)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
