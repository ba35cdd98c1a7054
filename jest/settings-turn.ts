import type { Pool } from "pg";

/**
 * Test files run in parallel against one `auth` schema, which has one application settings row.
 * A file that changes it takes a turn: a session advisory lock held from its first test to its
 * last, so no other such file changes the row while it compares before and after. Released by the
 * returned function; a file must leave GitLab's defaults behind when it is done.
 * (A throwaway schema per file, once the kit's test harness has it, makes this unnecessary.)
 */
export async function takeSettingsTurn(pool: Pool): Promise<() => Promise<void>> {
  const client = await pool.connect();
  await client.query("SELECT pg_advisory_lock(hashtext('canopy-test-application-settings'))");
  return async () => {
    await client.query("SELECT pg_advisory_unlock(hashtext('canopy-test-application-settings'))");
    client.release();
  };
}
