// The dataset of bench:projects: bench:groups' group tree (groups-dataset.ts, written into the groups
// schema), its copies written straight into the projects schema as the projects service's consumers
// would have made them (namespaces, group memberships, users), and projects generated with set-based
// SQL over it: one in each of the 10,000 groups of the big public subtree (its root then holds 10,000
// projects in its subtree), 100 straight in the member's first root (the group detail's), the rest spread evenly over the other groups, each as visible as its
// group. Growing adds projects outside the big subtree only, so the same requests see the same rows.
import { Client } from "pg";
import { generateGroups, type Dataset as GroupsDataset } from "./groups-dataset";

export interface ProjectsDataset extends GroupsDataset {
  projects: number;
}

async function connect(databaseUrl: string) {
  const db = new Client({ connectionString: databaseUrl, options: "-c search_path=projects" });
  await db.connect();
  return db;
}

/** The projects service's copies of what bench:groups wrote into the groups schema. */
async function copyGroups(db: Client) {
  await db.query(
    `INSERT INTO users (id, username, name)
     SELECT id, username, name FROM groups.users ON CONFLICT (id) DO NOTHING`,
  );
  await db.query(
    `INSERT INTO namespaces (id, kind, owner_id, parent_id, traversal_ids, path, name, full_path, full_name,
                             visibility_level, project_creation_level)
     SELECT id, kind, owner_id, parent_id, traversal_ids, path, name, full_path, full_name, visibility_level,
            project_creation_level
       FROM groups.namespaces ON CONFLICT (id) DO NOTHING`,
  );
  await db.query(
    `INSERT INTO group_members (namespace_id, user_id, access_level, expires_at)
     SELECT namespace_id, user_id, access_level, expires_at FROM groups.members ON CONFLICT DO NOTHING`,
  );
}

/** Projects numbered `from`..`to` over the groups outside the big subtree, round robin. */
async function insertSpread(db: Client, bigRootId: number, creatorId: number, from: number, to: number) {
  await db.query(
    `WITH targets AS (SELECT id, traversal_ids, visibility_level, row_number() OVER (ORDER BY id) - 1 AS k
                        FROM namespaces WHERE kind = 'group' AND traversal_ids[1] <> $1),
          n AS (SELECT count(*) AS c FROM targets)
     INSERT INTO projects (namespace_id, traversal_ids, name, path, visibility_level, creator_id)
     SELECT t.id, t.traversal_ids, 'Bench Project ' || g, 'bench-p' || g, t.visibility_level, $2
       FROM generate_series($3::int, $4::int) g, n, targets t
      WHERE t.k = g % n.c`,
    [bigRootId, creatorId, from, to],
  );
}

async function vacuumAndCount(db: Client): Promise<number> {
  await db.query("VACUUM (ANALYZE) projects, namespaces, group_members, users");
  return (await db.query("SELECT count(*)::int AS n FROM projects")).rows[0].n as number;
}

export async function generateProjects(
  databaseUrl: string,
  options: { groups: number; users: number; projects: number; memberId: number; ownerId: number },
): Promise<ProjectsDataset> {
  const groups = await generateGroups(databaseUrl, {
    groups: options.groups,
    users: options.users,
    memberId: options.memberId,
    bigTreeOwnerId: options.ownerId,
  });
  const db = await connect(databaseUrl);
  try {
    await db.query("BEGIN");
    await copyGroups(db);
    // One project in each group of the big subtree (its root excluded): 100 + 9,900 = 10,000.
    await db.query(
      `INSERT INTO projects (namespace_id, traversal_ids, name, path, visibility_level, creator_id)
       SELECT id, traversal_ids, 'Big Project ' || id, 'big-p' || id, visibility_level, $2
         FROM namespaces WHERE traversal_ids[1] = $1 AND id <> $1`,
      [groups.bigRootId, options.ownerId],
    );
    // 100 projects straight in the member's first root: the group detail's projects (at most 100).
    await db.query(
      `INSERT INTO projects (namespace_id, traversal_ids, name, path, visibility_level, creator_id)
       SELECT id, traversal_ids, 'Detail Project ' || g, 'detail-p' || g, visibility_level, $2
         FROM namespaces, generate_series(1, 100) g WHERE id = $1`,
      [groups.memberRootIds[0], options.ownerId],
    );
    const big = (await db.query("SELECT count(*)::int AS n FROM projects")).rows[0].n as number;
    await insertSpread(db, groups.bigRootId, options.ownerId, 1, options.projects - big);
    await db.query("COMMIT");
    return { ...groups, projects: await vacuumAndCount(db) };
  } finally {
    await db.end();
  }
}

export async function growProjects(
  databaseUrl: string,
  dataset: ProjectsDataset,
  projects: number,
  creatorId: number,
): Promise<ProjectsDataset> {
  const db = await connect(databaseUrl);
  try {
    if (projects > dataset.projects) {
      const spread = dataset.projects - 10_000;
      await insertSpread(db, dataset.bigRootId, creatorId, spread + 1, spread + projects - dataset.projects);
    }
    return { ...dataset, projects: await vacuumAndCount(db) };
  } finally {
    await db.end();
  }
}
