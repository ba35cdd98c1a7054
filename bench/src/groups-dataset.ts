// The dataset of bench:groups, written straight into the groups service's schema with set-based SQL
// (a million groups in a minute or two, where the API would take hours), shaped as the API would
// have made it: every group a namespace with exact traversal_ids, full_path and full_name, no child
// more visible than its parent, every user a personal namespace, members with levels 10..50.
//
// For N groups (BENCH_GROUPS, default 100,000): N/10 roots × 9 subgroups each, plus one public root
// with a 10,000-group subtree (100 children × 99 grandchildren) and one private chain 20 levels
// deep; U users (BENCH_GROUP_USERS, 10,000), each a member of 5 roots. Synthetic users exist only in
// the groups service's copy (ids from 10,000,000): nobody signs in as them.
import { Client } from "pg";

export const SYNTHETIC_USER_BASE = 10_000_000;

export interface Dataset {
  roots: number;
  groups: number;
  bigRootId: number;
  chainLeafId: number;
  /** Groups the member (a real user) belongs to directly: 5 roots; their subgroups come with them. */
  memberRootIds: number[];
}

/** Waits until the groups service holds its copy of each user (auth's events reached it). */
export async function waitForUserCopies(databaseUrl: string, userIds: number[]): Promise<void> {
  const db = new Client({ connectionString: databaseUrl, options: "-c search_path=groups" });
  await db.connect();
  try {
    for (let i = 0; i < 600; i++) {
      const { rows } = await db.query("SELECT count(*)::int AS n FROM users WHERE id = ANY($1::bigint[])", [
        userIds,
      ]);
      if (rows[0].n === userIds.length) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the groups service never heard of users ${userIds.join(", ")}`);
  } finally {
    await db.end();
  }
}

async function q(db: Client, sql: string, values: unknown[] = []) {
  return db.query(sql, values);
}

const NEXT_ID = "nextval(pg_get_serial_sequence('namespaces', 'id'))";
// 0 private, 10 internal, 20 public, by position: a third each.
const visibilityOf = (i: string) => `((${i}) % 3) * 10`;

/** Roots number `from`..`to` (paths bench-r<n>), each with 9 subgroups no more visible than it. */
async function insertRoots(db: Client, from: number, to: number) {
  await q(
    db,
    `WITH ids AS (SELECT ${NEXT_ID} AS id, g FROM generate_series($1::int, $2::int) g)
     INSERT INTO namespaces (id, kind, traversal_ids, path, name, full_path, full_name, visibility_level)
     SELECT id, 'group', ARRAY[id], 'bench-r' || g, 'Bench Root ' || g, 'bench-r' || g, 'Bench Root ' || g,
            ${visibilityOf("g")}
       FROM ids`,
    [from, to],
  );
  await q(
    db,
    `WITH parents AS (SELECT * FROM namespaces
                       WHERE parent_id IS NULL AND path = ANY(SELECT 'bench-r' || g FROM generate_series($1::int, $2::int) g)),
     ids AS (SELECT ${NEXT_ID} AS id, p.id AS pid, p.traversal_ids, p.full_path, p.full_name,
                    p.visibility_level AS pv, k
               FROM parents p, generate_series(1, 9) k)
     INSERT INTO namespaces (id, kind, parent_id, traversal_ids, path, name, full_path, full_name, visibility_level)
     SELECT id, 'group', pid, traversal_ids || id, 'sub' || k, 'Sub ' || k, full_path || '/sub' || k,
            full_name || ' / Sub ' || k, LEAST(pv, ${visibilityOf("k")})
       FROM ids`,
    [from, to],
  );
}

/** Vacuumed here rather than by autovacuum in the middle of the load (at 1M rows it takes a core for a
 * minute): the measurement is then of the API, not of PostgreSQL tidying up after the insert. */
async function vacuumAndCount(db: Client): Promise<number> {
  await q(db, "VACUUM (ANALYZE) namespaces, members, users");
  return (await q(db, "SELECT count(*)::int AS n FROM namespaces WHERE kind = 'group'")).rows[0].n as number;
}

/**
 * Grows a generated dataset to about `groups` groups with more roots of 10 groups each, touching
 * nothing the first generation made: the same callers then see the same groups, in a larger table.
 */
export async function growGroups(databaseUrl: string, dataset: Dataset, groups: number): Promise<Dataset> {
  const db = new Client({ connectionString: databaseUrl, options: "-c search_path=groups" });
  await db.connect();
  try {
    const roots = Math.max(dataset.roots, Math.floor((groups - (dataset.groups - dataset.roots * 10)) / 10));
    if (roots > dataset.roots) {
      await q(db, "BEGIN");
      await insertRoots(db, dataset.roots + 1, roots);
      await q(db, "COMMIT");
    }
    return { ...dataset, roots, groups: await vacuumAndCount(db) };
  } finally {
    await db.end();
  }
}

export async function generateGroups(
  databaseUrl: string,
  options: { groups: number; users: number; memberId: number; bigTreeOwnerId: number },
): Promise<Dataset> {
  const db = new Client({ connectionString: databaseUrl, options: "-c search_path=groups" });
  await db.connect();
  try {
    await q(db, "BEGIN");
    const roots = Math.max(1, Math.floor(options.groups / 10));
    await insertRoots(db, 1, roots);
    const big = await q(
      db,
      `INSERT INTO namespaces (id, kind, traversal_ids, path, name, full_path, full_name, visibility_level)
       SELECT id, 'group', ARRAY[id], 'bench-big', 'Bench Big', 'bench-big', 'Bench Big', 20
         FROM (SELECT ${NEXT_ID} AS id) n RETURNING id`,
    );
    const bigRootId = big.rows[0].id as number;
    await q(
      db,
      `WITH ids AS (SELECT ${NEXT_ID} AS id, k FROM generate_series(1, 100) k)
       INSERT INTO namespaces (id, kind, parent_id, traversal_ids, path, name, full_path, full_name, visibility_level)
       SELECT id, 'group', $1, ARRAY[$1::bigint, id], 'team' || k, 'Team ' || k, 'bench-big/team' || k,
              'Bench Big / Team ' || k, 20 FROM ids`,
      [bigRootId],
    );
    await q(
      db,
      `WITH parents AS (SELECT * FROM namespaces WHERE parent_id = $1),
       ids AS (SELECT ${NEXT_ID} AS id, p.id AS pid, p.traversal_ids, p.full_path, p.full_name, k
                 FROM parents p, generate_series(1, 99) k)
       INSERT INTO namespaces (id, kind, parent_id, traversal_ids, path, name, full_path, full_name, visibility_level)
       SELECT id, 'group', pid, traversal_ids || id, 'proj' || k, 'Proj ' || k, full_path || '/proj' || k,
              full_name || ' / Proj ' || k, 20 FROM ids`,
      [bigRootId],
    );
    let parent: { id: number; traversal_ids: number[]; full_path: string; full_name: string } | undefined;
    for (let depth = 1; depth <= 20; depth++) {
      const path = parent ? `level${depth}` : "bench-chain";
      const name = parent ? `Level ${depth}` : "Bench Chain";
      const res = await q(
        db,
        `INSERT INTO namespaces (id, kind, parent_id, traversal_ids, path, name, full_path, full_name, visibility_level)
         SELECT id, 'group', $1::bigint, $2::bigint[] || id, $3, $4, $5, $6, 0 FROM (SELECT ${NEXT_ID} AS id) n
         RETURNING id, traversal_ids, full_path, full_name`,
        [
          parent?.id ?? null,
          parent?.traversal_ids ?? [],
          path,
          name,
          parent ? `${parent.full_path}/${path}` : path,
          parent ? `${parent.full_name} / ${name}` : name,
        ],
      );
      parent = res.rows[0];
    }
    await q(
      db,
      `INSERT INTO users (id, username, name) SELECT $1 + g, 'bench-u' || g, 'Bench User ' || g
         FROM generate_series(1, $2) g`,
      [SYNTHETIC_USER_BASE, options.users],
    );
    await q(
      db,
      `WITH ids AS (SELECT ${NEXT_ID} AS id, g FROM generate_series(1, $2) g)
       INSERT INTO namespaces (id, kind, owner_id, traversal_ids, path, name, full_path, full_name, visibility_level)
       SELECT id, 'user', $1 + g, ARRAY[id], 'bench-u' || g, 'Bench User ' || g, 'bench-u' || g,
              'Bench User ' || g, 20 FROM ids`,
      [SYNTHETIC_USER_BASE, options.users],
    );
    // Each synthetic user joins 5 roots spread over the whole range, at levels 10..50.
    const rootIds = (
      await q(db, "SELECT id FROM namespaces WHERE parent_id IS NULL AND path LIKE 'bench-r%' ORDER BY id")
    ).rows.map((r) => r.id as number);
    await q(
      db,
      `INSERT INTO members (namespace_id, user_id, access_level)
       SELECT ($3::bigint[])[1 + ((g * 7919 + j * 104729) % $4)], $1 + g, 10 * (1 + (g + j) % 5)
         FROM generate_series(1, $2) g, generate_series(1, 5) j
       ON CONFLICT DO NOTHING`,
      [SYNTHETIC_USER_BASE, options.users, rootIds, rootIds.length],
    );
    const memberRootIds = [0, 1, 2, 3, 4].map((j) => rootIds[Math.floor(((j + 0.5) * rootIds.length) / 5)]!);
    for (const id of memberRootIds)
      await q(
        db,
        "INSERT INTO members (namespace_id, user_id, access_level) VALUES ($1, $2, 30) ON CONFLICT DO NOTHING",
        [id, options.memberId],
      );
    await q(db, "INSERT INTO members (namespace_id, user_id, access_level) VALUES ($1, $2, 50)", [
      bigRootId,
      options.bigTreeOwnerId,
    ]);
    await q(db, "COMMIT");
    const total = await vacuumAndCount(db);
    return { roots, groups: total, bigRootId, chainLeafId: parent!.id, memberRootIds };
  } finally {
    await db.end();
  }
}
