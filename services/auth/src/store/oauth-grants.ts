import type { Queryable } from "@canopy/kit";

export interface GrantRow {
  id: number;
  application_id: number;
  user_id: number;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string | null;
  code_challenge_method: string | null;
  nonce: string | null;
  auth_time: Date | null;
  expires_at: Date;
  used_at: Date | null;
}

export async function insertGrant(
  db: Queryable,
  g: Omit<GrantRow, "id" | "used_at" | "expires_at"> & { code_digest: string; lifetime_seconds: number },
): Promise<void> {
  await db.query(
    `INSERT INTO oauth_grants (application_id, user_id, code_digest, redirect_uri, scopes, code_challenge,
       code_challenge_method, nonce, auth_time, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10))`,
    [
      g.application_id,
      g.user_id,
      g.code_digest,
      g.redirect_uri,
      g.scopes,
      g.code_challenge,
      g.code_challenge_method,
      g.nonce,
      g.auth_time,
      g.lifetime_seconds,
    ],
  );
}

/** A code with its user's state and rights now, which may differ from when the code was issued. */
export type GrantWithUser = GrantRow & { user_state: string; user_admin: boolean };

/** Locks the code's row: of two concurrent exchanges, the second waits and then sees it used. */
export async function lockGrantByDigest(
  tx: Queryable,
  digests: string[],
): Promise<GrantWithUser | undefined> {
  const { rows } = await tx.query<GrantWithUser>(
    `SELECT g.*, u.state AS user_state, u.admin AS user_admin
      FROM oauth_grants g JOIN users u ON u.id = g.user_id WHERE g.code_digest = ANY($1::text[]) FOR UPDATE OF g`,
    [digests],
  );
  return rows[0];
}

export async function markGrantUsed(tx: Queryable, id: number): Promise<void> {
  await tx.query("UPDATE oauth_grants SET used_at = now() WHERE id = $1", [id]);
}
