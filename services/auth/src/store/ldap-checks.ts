import type { Queryable } from "@canopy/kit";

/** A user taken for the scheduled LDAP check, with the identity to check. */
export interface ClaimedCheck {
  userId: number;
  provider: string;
  /** The identity's normalized DN. */
  externUid: string;
  /**
   * last_credential_check_at before the claim, and as the claim set it (see releaseClaims), as
   * PostgreSQL's text: a Date would lose the microseconds the comparison needs.
   */
  previous: string | null;
  claimedAt: string;
}

/**
 * The instant a run's users must have been checked before to be due: `intervalSeconds` before the
 * run started, fixed for the whole run, so a user the run has checked is never due again in it
 * (even with an interval of 0). As PostgreSQL's text, microseconds kept.
 */
export async function dueBefore(db: Queryable, intervalSeconds: number): Promise<string> {
  const { rows } = await db.query<{ cutoff: string }>(
    "SELECT (now() - make_interval(secs => $1))::text AS cutoff",
    [intervalSeconds],
  );
  return rows[0]!.cutoff;
}

/**
 * Claims up to `limit` users due for the scheduled LDAP check and marks them checked now.
 *
 * Due: the user has an identity of one of `providers` (a configured server), is in a state the
 * directory may change (active, deactivated, ldap_blocked: never one an administrator blocked, banned
 * or has to approve), and was never checked or not since `cutoff` (dueBefore); the oldest check first.
 * A user holding identities of several servers is checked against the first (lowest id), as
 * GitLab's `User#ldap_identity` picks one; if that server is in `skipped` (its directory failed
 * this run), the user waits.
 *
 * FOR UPDATE SKIP LOCKED and the stamp in one statement: replicas claiming at once take different
 * users, and a user a committed claim stamped is no longer due (the row is re-checked under the
 * lock), so no user is checked twice. The row lock lasts only this statement: the directory is asked
 * afterwards, without holding up sign-ins or API writes to the user.
 */
export async function claimDueChecks(
  db: Queryable,
  providers: string[],
  skipped: string[],
  cutoff: string,
  limit: number,
): Promise<ClaimedCheck[]> {
  const { rows } = await db.query<{
    user_id: string;
    provider: string;
    extern_uid: string;
    previous: string | null;
    claimed_at: string;
  }>(
    // Walked from the LDAP identities (their provider index), not from every user: local users,
    // never checked, would otherwise be read again at the head of every claim.
    `WITH due AS (
       SELECT u.id, u.last_credential_check_at AS previous, i.provider, i.extern_uid
         FROM identities i JOIN users u ON u.id = i.user_id
        WHERE i.provider = ANY($1::text[])
          AND i.id = (SELECT min(first.id) FROM identities first
                       WHERE first.user_id = i.user_id AND first.provider = ANY($1::text[]))
          AND u.state IN ('active', 'deactivated', 'ldap_blocked')
          AND i.provider <> ALL($2::text[])
          AND (u.last_credential_check_at IS NULL OR u.last_credential_check_at < $3::timestamptz)
        ORDER BY u.last_credential_check_at NULLS FIRST, u.id
        LIMIT $4
        FOR UPDATE OF u SKIP LOCKED)
     UPDATE users SET last_credential_check_at = now() FROM due WHERE users.id = due.id
     RETURNING users.id AS user_id, due.provider, due.extern_uid, due.previous::text AS previous,
               users.last_credential_check_at::text AS claimed_at`,
    [providers, skipped, cutoff, limit],
  );
  return rows.map((r) => ({
    userId: Number(r.user_id),
    provider: r.provider,
    externUid: r.extern_uid,
    previous: r.previous,
    claimedAt: r.claimed_at,
  }));
}

/**
 * Gives claims back unchecked (their directory could not be reached): last_credential_check_at is
 * what it was, so the next run takes them again. A user whose stamp changed meanwhile (a sign-in
 * checked them) keeps the newer one.
 */
export async function releaseClaims(db: Queryable, claims: ClaimedCheck[]): Promise<void> {
  if (!claims.length) return;
  await db.query(
    `UPDATE users u SET last_credential_check_at = c.previous
       FROM unnest($1::bigint[], $2::timestamptz[], $3::timestamptz[]) AS c(id, previous, claimed_at)
      WHERE u.id = c.id AND u.last_credential_check_at = c.claimed_at`,
    [claims.map((c) => c.userId), claims.map((c) => c.previous), claims.map((c) => c.claimedAt)],
  );
}

/** The directory has just confirmed the user (GitLab's `last_credential_check_at: Time.now`). */
export async function stampCredentialCheck(db: Queryable, userId: number): Promise<void> {
  await db.query("UPDATE users SET last_credential_check_at = now() WHERE id = $1", [userId]);
}

/** The user's identity of `provider`, its extern_uid (normalized DN), if they still have one. */
export async function externUidOf(
  db: Queryable,
  userId: number,
  provider: string,
): Promise<string | undefined> {
  const { rows } = await db.query<{ extern_uid: string }>(
    "SELECT extern_uid FROM identities WHERE user_id = $1 AND provider = $2",
    [userId, provider],
  );
  return rows[0]?.extern_uid;
}
