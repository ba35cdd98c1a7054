// States no API call produces (a sign-up waiting for approval): the state suites set them in the
// stack's database, as the auth service would.
import { Client } from "pg";
import type { Session } from "../support/session";

export async function setUserStateInDatabase(session: Session, userIds: number[], state: string) {
  const url = new URL(
    process.env.CANOPY_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
  );
  url.pathname = `/${session.stack.databaseName}`;
  const db = new Client({ connectionString: url.toString() });
  await db.connect();
  try {
    await db.query("UPDATE auth.users SET state = $2 WHERE id = ANY($1)", [userIds, state]);
  } finally {
    await db.end();
  }
}
