import { randomBytes } from "node:crypto";
import { createPool, type Pool } from "@canopy/kit";
import { startTestService, throwawayDatabase, waitFor, type ThrowawayDatabase } from "@canopy/kit/testing";
import { authServiceDefinition } from "@canopy/auth";
import { groupsServiceDefinition } from "@canopy/groups";
import { projectsServiceDefinition } from "../src/service";

// The groups service's copies of projects (its migration 0012) and of who sees them through the
// project (0013: memberships and shares) in a deployment whose projects are older than the event
// stream keeps (7 days): the projects service republishes a snapshot of each once (its migrations
// 0006 and 0008), through the real stream, and the groups service's consumers copy them; a second
// republication changes nothing. Its own database and stream: nothing else publishes there.
// Its waits are long: thousands of snapshots go through the real stream and three consumers, and on
// a busy two-core machine (the whole suite running) copying them has taken over a minute.
jest.setTimeout(600_000);
const COPY_WAIT_MS = 180_000;

let own: ThrowawayDatabase;
let db: Pool;
const running: { stop(): Promise<unknown> }[] = [];
const projectsReplicas: { stop(): Promise<unknown> }[] = [];
const stopProjects = async () => {
  await Promise.all(projectsReplicas.splice(0).map((s) => s.stop()));
};
const startProjects = async () => {
  projectsReplicas.push(await startTestService(projectsServiceDefinition, { env: own.env }));
};

beforeAll(async () => {
  own = await throwawayDatabase("canopy_test_gbackfill_");
  db = createPool({ url: own.url, schema: "public" });
  const rootToken = `glpat-${randomBytes(24).toString("base64url")}`;
  running.push(
    await startTestService(authServiceDefinition, {
      env: { ...own.env, CANOPY_ROOT_PASSWORD: "root-password-for-tests", CANOPY_ROOT_TOKEN: rootToken },
    }),
  );
});
afterAll(async () => {
  await stopProjects();
  for (const s of running.splice(0).reverse()) await s.stop();
  await db.end();
  await own.drop();
});

/** What an older deployment left in the projects schema, with no event on the stream: 40 groups
 * and 2,300 projects among them (visibilities, archived and marked ones mixed). */
async function insertOlderProjects() {
  await db.query(`
    INSERT INTO projects.namespaces (id, kind, traversal_ids, path, name, full_path, full_name, visibility_level)
    SELECT 800000 + g, 'group', ARRAY[800000 + g], 'old-g' || g, 'Old ' || g, 'old-g' || g, 'Old ' || g, 20
      FROM generate_series(1, 40) g;
    INSERT INTO projects.projects (namespace_id, traversal_ids, name, path, visibility_level, archived,
                                   creator_id, marked_for_deletion_on)
    SELECT 800001 + k % 40, ARRAY[800001 + k % 40], 'P ' || k, 'p-' || k, (k % 3) * 10, k % 7 = 0, 1,
           CASE WHEN k % 11 = 0 THEN DATE '2026-01-02' END
      FROM generate_series(1, 2300) k;
    INSERT INTO projects.project_members (project_id, user_id, access_level, expires_at)
    SELECT p.id, 700000 + u, 10 * (1 + u % 5), CASE WHEN u = 3 THEN DATE '2031-05-06' END
      FROM projects.projects p, generate_series(1, 3) u WHERE p.path LIKE 'p-%' AND p.id % 2 = 0;
    INSERT INTO projects.project_group_links (project_id, group_id, group_access, expires_at)
    SELECT p.id, 800001 + p.id % 40, 20, CASE WHEN p.id % 3 = 0 THEN DATE '2031-05-06' END
      FROM projects.projects p WHERE p.path LIKE 'p-%' AND p.id % 5 = 0;
  `);
}

/** Memberships and shares in one schema and not the other, as the groups copies hold them. */
async function accessDifferences() {
  const q = async (sql: string) => (await db.query(sql)).rows;
  const both = async (columns: string, table: string, copy: string) => [
    ...(await q(`SELECT ${columns} FROM projects.${table} EXCEPT SELECT ${columns} FROM groups.${copy}`)),
    ...(await q(`SELECT ${columns} FROM groups.${copy} EXCEPT SELECT ${columns} FROM projects.${table}`)),
  ];
  return [
    ...(await both("project_id, user_id, access_level, expires_at", "project_members", "project_members")),
    ...(await both(
      "project_id, group_id, group_access, expires_at",
      "project_group_links",
      "project_shares",
    )),
  ];
}

/** Projects in one schema and not the other, as the groups copy holds them. */
async function differences() {
  const columns = "SELECT id, namespace_id, path, visibility_level FROM %s.projects";
  const q = async (sql: string) => (await db.query(sql)).rows;
  const inProjects = columns.replace("%s", "projects");
  const inGroups = columns.replace("%s", "groups");
  return [...(await q(`${inProjects} EXCEPT ${inGroups}`)), ...(await q(`${inGroups} EXCEPT ${inProjects}`))];
}

const count = async (sql: string) => (await db.query<{ n: number }>(sql)).rows[0]!.n;
const backfillDone = async () =>
  (await count("SELECT count(*)::int AS n FROM projects.event_backfills WHERE done_at IS NULL")) === 0;
const republished = () =>
  count("SELECT count(*)::int AS n FROM projects.outbox WHERE subject LIKE '%.republished'");
const unpublished = () => count("SELECT count(*)::int AS n FROM projects.outbox WHERE published_at IS NULL");
const processed = () =>
  count("SELECT count(*)::int AS n FROM groups.processed_events WHERE consumer = 'groups-projects'");
const processedAccess = () =>
  count(`SELECT count(*)::int AS n FROM groups.processed_events
          WHERE consumer IN ('groups-project-members', 'groups-project-shares')`);
const copiesChangedEvents = () =>
  count("SELECT count(*)::int AS n FROM groups.outbox WHERE subject LIKE '%.copies.changed'");

describe("the projects service's snapshot backfill, seen by a groups copy that missed the events", () => {
  it("copies every older project, once for two replicas, and a second republication changes nothing", async () => {
    await startProjects();
    // A fresh database: nothing to publish, the backfill marked done.
    await waitFor("the backfill to finish on a fresh database", backfillDone);
    expect(await republished()).toBe(0);
    await stopProjects();
    // The older projects, then the upgrade (the backfill owed again).
    await insertOlderProjects();
    await db.query("UPDATE projects.event_backfills SET last_id = 0, started_at = NULL, done_at = NULL");

    // The groups service first (it finds none of this on the stream), then two projects replicas.
    running.push(await startTestService(groupsServiceDefinition, { env: own.env }));
    await Promise.all([startProjects(), startProjects()]);
    await waitFor("the backfill to finish", backfillDone, 60_000);
    const projectCount = await count("SELECT count(*)::int AS n FROM projects.projects");
    expect(projectCount).toBe(2300);
    // Each project once, though two replicas ran the backfill together.
    const memberCount = await count("SELECT count(*)::int AS n FROM projects.project_members");
    const shareCount = await count("SELECT count(*)::int AS n FROM projects.project_group_links");
    expect(memberCount).toBeGreaterThan(3000);
    expect(shareCount).toBeGreaterThan(400);
    expect(await republished()).toBe(projectCount + memberCount + shareCount);

    let last: unknown[] = [];
    const matching = async () => (last = await differences()).length === 0;
    // Shown as the rows that differ when it times out.
    await waitFor("the groups copy to match", matching, COPY_WAIT_MS).catch(() => undefined);
    expect(last).toEqual([]);
    await waitFor(
      "the access copies to match",
      async () => (last = await accessDifferences()).length === 0,
      COPY_WAIT_MS,
    ).catch(() => undefined);
    expect(last).toEqual([]);
    // The copy answers the groups rules: a group may not go below its most visible project.
    expect(
      await count(
        "SELECT count(DISTINCT namespace_id)::int AS n FROM groups.projects WHERE visibility_level = 20",
      ),
    ).toBe(40);

    // Republished again (a second upgrade): the copy applies the same snapshots once more, unchanged.
    const before = await processed();
    const beforeAccess = await processedAccess();
    const changedBefore = await copiesChangedEvents();
    await stopProjects();
    await db.query("UPDATE projects.event_backfills SET last_id = 0, started_at = NULL, done_at = NULL");
    await startProjects();
    await waitFor("the second republication to finish", backfillDone, 60_000);
    await waitFor("the stream to drain", async () => (await unpublished()) === 0, 30_000);
    await waitFor(
      "the consumer to apply them",
      async () => (await processed()) >= before + projectCount,
      COPY_WAIT_MS,
    );
    await waitFor(
      "the access consumers to apply them",
      async () => (await processedAccess()) >= beforeAccess + memberCount + shareCount,
      COPY_WAIT_MS,
    );
    expect(await differences()).toEqual([]);
    expect(await accessDifferences()).toEqual([]);
    // Nothing changed, so no answer cache was told so.
    expect(await copiesChangedEvents()).toBe(changedBefore);
    expect(await count("SELECT count(*)::int AS n FROM groups.projects")).toBe(projectCount);
  });
});
