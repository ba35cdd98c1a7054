import { randomBytes } from "node:crypto";
import { createPool, type Pool } from "@canopy/kit";
import { startTestService, throwawayDatabase, waitFor, type ThrowawayDatabase } from "@canopy/kit/testing";
import { authServiceDefinition } from "@canopy/auth";
import { groupsServiceDefinition } from "@canopy/groups";
import { projectsServiceDefinition } from "../src/service";

// A projects service added to a deployment whose groups, memberships and shares are older than the
// event stream keeps (7 days): the groups service republishes a snapshot of each once (its
// migration 0011), through the real stream, and the projects service's consumer copies them; a
// second republication changes nothing. Its own database and stream: nothing else publishes there.
// Generous waits: on a loaded 2-core machine the consumer applies the ~4,000 snapshots (each with
// its ProjectCopiesChanged in the outbox) at 70-150 a second.
jest.setTimeout(420_000);

let own: ThrowawayDatabase;
let db: Pool;
const running: { stop(): Promise<unknown> }[] = [];
const groupsReplicas: { stop(): Promise<unknown> }[] = [];
const stopAll = async () => {
  await stopGroups();
  for (const s of running.splice(0).reverse()) await s.stop();
};
const stopGroups = async () => {
  await Promise.all(groupsReplicas.splice(0).map((s) => s.stop()));
};
const startGroups = async () => {
  groupsReplicas.push(await startTestService(groupsServiceDefinition, { env: own.env }));
};

beforeAll(async () => {
  own = await throwawayDatabase("canopy_test_pbackfill_");
  db = createPool({ url: own.url, schema: "public" });
  const rootToken = `glpat-${randomBytes(24).toString("base64url")}`;
  running.push(
    await startTestService(authServiceDefinition, {
      env: { ...own.env, CANOPY_ROOT_PASSWORD: "root-password-for-tests", CANOPY_ROOT_TOKEN: rootToken },
    }),
  );
});
afterAll(async () => {
  await stopAll();
  await db.end();
  await own.drop();
});

/** What an older deployment left in the groups schema, with no event on the stream: 1,500 groups
 * (150 roots of 10), 2,400 memberships, 149 shares; levels of project creation mixed. */
async function insertOlderData() {
  await db.query(`
    INSERT INTO groups.users (id, username, name) SELECT 900000 + g, 'old_u' || g, 'Old ' || g
      FROM generate_series(1, 800) g;
    INSERT INTO groups.namespaces (kind, traversal_ids, path, name, full_path, full_name,
                                   visibility_level, project_creation_level)
    SELECT 'group', '{}', 'old-r' || g, 'Old ' || g, 'old-r' || g, 'Old ' || g, (g % 3) * 10, g % 3
      FROM generate_series(1, 150) g;
    UPDATE groups.namespaces SET traversal_ids = ARRAY[id] WHERE path LIKE 'old-r%';
    INSERT INTO groups.namespaces (kind, parent_id, traversal_ids, path, name, full_path, full_name,
                                   visibility_level)
    SELECT 'group', r.id, '{}', 'sub' || k, 'Sub ' || k, r.full_path || '/sub' || k, r.full_name || ' / Sub ' || k, 0
      FROM groups.namespaces r, generate_series(1, 9) k WHERE r.path LIKE 'old-r%';
    UPDATE groups.namespaces n SET traversal_ids = ARRAY[n.parent_id, n.id]
     WHERE n.parent_id IS NOT NULL AND n.path LIKE 'sub%';
    INSERT INTO groups.members (namespace_id, user_id, access_level, expires_at)
    SELECT n.id, 900000 + 1 + (n.id * 7 + j) % 800, 10 * (1 + (n.id + j) % 5),
           CASE WHEN j = 1 THEN DATE '2099-01-01' END
      FROM groups.namespaces n, generate_series(1, 2) j WHERE n.path LIKE 'sub%' OR n.path LIKE 'old-r%'
      ORDER BY n.id LIMIT 2400
    ON CONFLICT DO NOTHING;
    INSERT INTO groups.group_links (shared_group_id, shared_with_group_id, group_access)
    SELECT a.id, b.id, 30 FROM groups.namespaces a
      JOIN groups.namespaces b ON b.path = 'old-r' || (substr(a.path, 6)::int + 1)
     WHERE a.path LIKE 'old-r%';
  `);
}

/** Rows in `groups` and not in `projects` (or the other way), for namespaces, members and shares. */
async function differences() {
  const q = async (sql: string) => (await db.query(sql)).rows;
  const namespaces = `SELECT id, kind, parent_id, traversal_ids, path, name, full_path, full_name,
                             visibility_level, project_creation_level FROM %s.namespaces WHERE kind = 'group'`;
  const members = "SELECT namespace_id, user_id, access_level, expires_at FROM %s.%s";
  const shares = "SELECT shared_group_id, shared_with_group_id, group_access, expires_at FROM %s.%s";
  const both = async (groupsSql: string, projectsSql: string) => [
    ...(await q(`${groupsSql} EXCEPT ${projectsSql}`)),
    ...(await q(`${projectsSql} EXCEPT ${groupsSql}`)),
  ];
  return {
    namespaces: await both(namespaces.replace("%s", "groups"), namespaces.replace("%s", "projects")),
    members: await both(
      members.replace("%s.%s", "groups.members"),
      members.replace("%s.%s", "projects.group_members"),
    ),
    shares: await both(
      shares.replace("%s.%s", "groups.group_links"),
      shares.replace("%s.%s", "projects.group_group_links"),
    ),
  };
}

const count = async (sql: string) => (await db.query<{ n: number }>(sql)).rows[0]!.n;
const backfillsDone = () =>
  count("SELECT count(*)::int AS n FROM groups.event_backfills WHERE done_at IS NOT NULL");
const unpublished = () => count("SELECT count(*)::int AS n FROM groups.outbox WHERE published_at IS NULL");
const processed = () =>
  count("SELECT count(*)::int AS n FROM projects.processed_events WHERE consumer = 'projects-groups'");
const republished = () =>
  count("SELECT count(*)::int AS n FROM groups.outbox WHERE subject LIKE '%.republished'");

describe("the groups service's snapshot backfill, seen by a projects service that joins later", () => {
  it("copies every older namespace, membership and share, and a second republication changes nothing", async () => {
    await startGroups();
    // A fresh database: nothing older to publish, each backfill marked done.
    await waitFor("the backfills to finish on a fresh database", async () => (await backfillsDone()) === 3);
    // At most root's personal namespace, if its user event was applied before the pass ran.
    const fresh = await republished();
    expect(fresh).toBeLessThanOrEqual(await count("SELECT count(*)::int AS n FROM groups.namespaces"));
    await stopGroups();
    // The older data, then the upgrade (the backfills owed again).
    await insertOlderData();
    await db.query("UPDATE groups.event_backfills SET last_id = 0, started_at = NULL, done_at = NULL");

    // The projects service first (it finds none of this on the stream), then two groups replicas.
    running.push(await startTestService(projectsServiceDefinition, { env: own.env }));
    await Promise.all([startGroups(), startGroups()]);
    await waitFor("the backfills to finish", async () => (await backfillsDone()) === 3, 180_000);
    const groupCount = await count("SELECT count(*)::int AS n FROM groups.namespaces");
    const memberCount = await count("SELECT count(*)::int AS n FROM groups.members");
    const shareCount = await count("SELECT count(*)::int AS n FROM groups.group_links");
    // Each row once, though two replicas ran the backfills together.
    expect((await republished()) - fresh).toBe(groupCount + memberCount + shareCount);
    expect(shareCount).toBe(149);

    const empty = { namespaces: [], members: [], shares: [] };
    let last: Awaited<ReturnType<typeof differences>> | undefined;
    const matching = async () => {
      last = await differences();
      return JSON.stringify(last) === JSON.stringify(empty);
    };
    // Shown as the rows that differ when it times out.
    await waitFor("the projects service's copies to match", matching, 180_000).catch(() => undefined);
    expect(last).toEqual(empty);
    expect(
      await count("SELECT count(*)::int AS n FROM projects.namespaces WHERE project_creation_level = 0"),
    ).toBe(50);

    // Republished again (a second upgrade): the copies apply the same snapshots once more, unchanged.
    const before = await processed();
    await stopGroups();
    await db.query("UPDATE groups.event_backfills SET last_id = 0, started_at = NULL, done_at = NULL");
    await startGroups();
    await waitFor("the second republication to finish", async () => (await backfillsDone()) === 3, 180_000);
    await waitFor("the stream to drain", async () => (await unpublished()) === 0, 60_000);
    const total = groupCount + memberCount + shareCount;
    await waitFor("the consumer to apply them", async () => (await processed()) >= before + total, 180_000);
    expect(await differences()).toEqual(empty);
  });
});
