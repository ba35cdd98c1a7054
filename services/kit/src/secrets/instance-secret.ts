import type { Queryable } from "../db";

/**
 * The secret called `name` in the service's own `instance_secrets` table, storing `candidate` first
 * if there is none yet. Every replica may race here: ON CONFLICT DO NOTHING lets the first insert win
 * and every caller then reads the winner, so all replicas and restarts share one key without setup.
 */
export async function ensureInstanceSecret(db: Queryable, name: string, candidate: Buffer): Promise<Buffer> {
  await db.query("INSERT INTO instance_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [
    name,
    candidate,
  ]);
  const { rows } = await db.query<{ value: Buffer }>("SELECT value FROM instance_secrets WHERE name = $1", [
    name,
  ]);
  return rows[0]!.value;
}

/** The secret called `name`, if one was ever stored (nothing is generated here). */
export async function readInstanceSecret(db: Queryable, name: string): Promise<Buffer | undefined> {
  const { rows } = await db.query<{ value: Buffer }>("SELECT value FROM instance_secrets WHERE name = $1", [
    name,
  ]);
  return rows[0]?.value;
}
