// The Canopy side of bench:ldap's directory: one user per directory person, each with the LDAP
// identity a first sign-in would have given it (provider + the normalized DN), written straight into
// the schemas with set-based SQL, as bench:groups writes its dataset. Through the API 5,000 users
// would cost 5,000 argon2 hashes (minutes on two cores) and through sign-in as many binds; neither is
// what the bench measures. Auth's rows make them real users; the copies are what auth's UserCreated
// events would have made in every service that keeps one: groups (users and personal namespaces),
// projects and hooks (users and personal namespaces), and ldap (users and identities, with the
// lower-cased DN key its sync matches on).
import { normalizeDn } from "@canopy/kit";
import { Client } from "pg";

export interface LdapPerson {
  uid: string;
  dn: string;
}

/** Creates a Canopy user for each person, with the identity `provider` + normalized DN; their ids by uid. */
export async function seedLdapUsers(
  databaseUrl: string,
  provider: string,
  people: LdapPerson[],
): Promise<Map<string, number>> {
  const db = new Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    await db.query("BEGIN");
    const uids = people.map((p) => p.uid);
    const dns = people.map((p) => normalizeDn(p.dn));
    const { rows } = await db.query<{ id: number; username: string }>(
      `INSERT INTO auth.users (username, email, name, confirmed_at)
       SELECT uid, uid || '@example.org', 'Bench ' || uid, now() FROM unnest($1::text[]) uid
       RETURNING id::int, username`,
      [uids],
    );
    const ids = new Map(rows.map((r) => [r.username, r.id]));
    const userIds = uids.map((uid) => ids.get(uid)!);
    await db.query(
      `INSERT INTO auth.identities (user_id, provider, extern_uid)
       SELECT u, $2, dn FROM unnest($1::bigint[], $3::text[]) AS p(u, dn)`,
      [userIds, provider, dns],
    );
    await copyUsers(db, userIds);
    await db.query(
      `INSERT INTO ldap.users (id, username) SELECT id, username FROM auth.users WHERE id = ANY($1::bigint[])`,
      [userIds],
    );
    await db.query(
      `INSERT INTO ldap.identities (user_id, provider, extern_uid, dn_key)
       SELECT user_id, provider, extern_uid, lower(extern_uid) FROM auth.identities
        WHERE user_id = ANY($1::bigint[])`,
      [userIds],
    );
    await db.query("COMMIT");
    await db.query("ANALYZE auth.users, auth.identities, groups.users, groups.namespaces, ldap.identities");
    return ids;
  } finally {
    await db.end();
  }
}

/** The copies of groups, projects and hooks, and each user's personal namespace. */
async function copyUsers(db: Client, userIds: number[]) {
  const created = "SELECT id, username, name, email FROM auth.users WHERE id = ANY($1::bigint[])";
  await db.query(
    `INSERT INTO groups.users (id, username, name) SELECT id, username, name FROM (${created}) u`,
    [userIds],
  );
  await db.query(
    `WITH ids AS (SELECT nextval(pg_get_serial_sequence('groups.namespaces', 'id')) AS id, u.id AS user_id,
                        u.username, u.name
                   FROM (${created}) u)
     INSERT INTO groups.namespaces (id, kind, owner_id, traversal_ids, path, name, full_path, full_name,
                                    visibility_level)
     SELECT id, 'user', user_id, ARRAY[id], username, name, username, name, 20 FROM ids`,
    [userIds],
  );
  await db.query(
    `INSERT INTO projects.users (id, username, name) SELECT id, username, name FROM (${created}) u`,
    [userIds],
  );
  await db.query(
    `INSERT INTO hooks.users (id, username, name, email) SELECT id, username, name, email FROM (${created}) u`,
    [userIds],
  );
  const personal = `SELECT * FROM groups.namespaces WHERE kind = 'user' AND owner_id = ANY($1::bigint[])`;
  await db.query(
    `INSERT INTO projects.namespaces (id, kind, owner_id, traversal_ids, path, name, full_path, full_name,
                                      visibility_level)
     SELECT id, kind, owner_id, traversal_ids, path, name, full_path, full_name, visibility_level
       FROM (${personal}) n`,
    [userIds],
  );
  await db.query(
    `INSERT INTO hooks.namespaces (id, kind, traversal_ids, path, name, full_path, full_name, visibility_level)
     SELECT id, kind, traversal_ids, path, name, full_path, full_name, visibility_level FROM (${personal}) n`,
    [userIds],
  );
}
