import type { Queryable } from "@canopy/kit";

export interface FirstSignIn {
  user_id: number;
  provider: string;
  dn: string;
}

export async function queueFirstSignIn(db: Queryable, s: FirstSignIn): Promise<void> {
  await db.query("INSERT INTO first_sign_ins (user_id, provider, dn) VALUES ($1, $2, $3)", [
    s.user_id,
    s.provider,
    s.dn,
  ]);
}

/** Takes the oldest waiting first sign-in off the queue (each taken by one replica only). */
export async function takeFirstSignIn(db: Queryable): Promise<FirstSignIn | undefined> {
  const { rows } = await db.query<FirstSignIn>(
    `DELETE FROM first_sign_ins WHERE id = (SELECT id FROM first_sign_ins ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1)
     RETURNING user_id::int, provider, dn`,
  );
  return rows[0];
}
