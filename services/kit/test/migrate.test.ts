import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPool, migrate, readMigrations, type Migration, type Pool } from "@canopy/kit";
import { testDatabaseUrl, unique } from "./support/infra";

const KIT_VERSIONS = ["0000_kit_outbox", "0000_kit_outbox_stream_seq"];

const widgets: Migration[] = [
  { version: "0001_widgets", sql: "CREATE TABLE widgets (id bigserial PRIMARY KEY, name text NOT NULL)" },
  { version: "0002_widget_colour", sql: "ALTER TABLE widgets ADD COLUMN colour text" },
];

const pools: Pool[] = [];
const schemas: string[] = [];

/** A pool on a schema name no other test uses; both are cleaned up after the file. */
function newSchema(): { pool: Pool; schema: string } {
  const schema = unique("kit_test_");
  schemas.push(schema);
  const pool = createPool({ url: testDatabaseUrl(), schema, max: 2 });
  pools.push(pool);
  return { pool, schema };
}

const appliedVersions = async (pool: Pool, schema: string) =>
  (
    await pool.query<{ version: string }>(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)
  ).rows.map((r) => r.version);

const tablesOf = async (pool: Pool, schema: string) =>
  (
    await pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    )
  ).rows.map((r) => r.table_name);

afterAll(async () => {
  const admin = createPool({ url: testDatabaseUrl(), schema: "public", max: 1 });
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
  await Promise.all(pools.map((p) => p.end()));
});

describe("migrate", () => {
  it("applies the kit's tables and then the service's migrations, in order", async () => {
    const { pool, schema } = newSchema();
    expect(await migrate(pool, schema, widgets)).toEqual([
      ...KIT_VERSIONS,
      "0001_widgets",
      "0002_widget_colour",
    ]);
    expect(await tablesOf(pool, schema)).toEqual([
      "outbox",
      "processed_events",
      "schema_migrations",
      "widgets",
    ]);
    // The pool's search_path names the schema, so service code uses its tables unqualified.
    await pool.query("INSERT INTO widgets (name, colour) VALUES ('gear', 'red')");
    expect((await pool.query("SELECT name, colour FROM widgets")).rows).toEqual([
      { name: "gear", colour: "red" },
    ]);
  });

  it("applies nothing on a second run, and only what is new on a later one", async () => {
    const { pool, schema } = newSchema();
    await migrate(pool, schema, widgets.slice(0, 1));
    expect(await migrate(pool, schema, widgets.slice(0, 1))).toEqual([]);
    expect(await migrate(pool, schema, widgets)).toEqual(["0002_widget_colour"]);
    expect(await appliedVersions(pool, schema)).toEqual([
      ...KIT_VERSIONS,
      "0001_widgets",
      "0002_widget_colour",
    ]);
  });

  it("applies each migration exactly once when two replicas migrate at the same time", async () => {
    const { pool: first, schema } = newSchema();
    const second = createPool({ url: testDatabaseUrl(), schema, max: 2 });
    pools.push(second);
    // Not idempotent: a second application would fail on the duplicate table or count a second row.
    const once: Migration[] = [
      {
        version: "0001_runs",
        sql: "CREATE TABLE runs (n int); INSERT INTO runs VALUES (1); SELECT pg_sleep(0.2)",
      },
    ];
    const [a, b] = await Promise.all([migrate(first, schema, once), migrate(second, schema, once)]);
    expect([...a, ...b].sort()).toEqual([...KIT_VERSIONS, "0001_runs"].sort());
    expect([a.length, b.length].sort()).toEqual([0, 3]);
    expect((await first.query("SELECT count(*)::int AS n FROM runs")).rows[0].n).toBe(1);
  });

  it("throws with the failing version, keeps what succeeded before it, and records nothing for it", async () => {
    const { pool, schema } = newSchema();
    const broken: Migration[] = [
      widgets[0]!,
      { version: "0002_broken", sql: "CREATE TABLE half_done (id int); SELECT * FROM no_such_table" },
    ];
    await expect(migrate(pool, schema, broken)).rejects.toThrow(
      new RegExp(`migration ${schema}/0002_broken failed: .*no_such_table`),
    );
    expect(await appliedVersions(pool, schema)).toEqual([...KIT_VERSIONS, "0001_widgets"]);
    // The failed file ran in its own transaction: none of its statements stayed.
    expect(await tablesOf(pool, schema)).not.toContain("half_done");
    // The advisory lock was released: a fixed migration goes through.
    const fixed = { version: "0002_broken", sql: "CREATE TABLE half_done (id int)" };
    expect(await migrate(pool, schema, [widgets[0]!, fixed])).toEqual(["0002_broken"]);
  });

  it("refuses a schema name that is not a plain identifier", async () => {
    const { pool } = newSchema();
    await expect(migrate(pool, "x; DROP SCHEMA public", [])).rejects.toThrow("invalid schema name");
  });
});

describe("readMigrations", () => {
  it("reads NNNN_name.sql files in name order and ignores other files", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "kit-migrations-"));
    try {
      await writeFile(path.join(dir, "0002_b.sql"), "SELECT 2");
      await writeFile(path.join(dir, "0001_a.sql"), "SELECT 1");
      await writeFile(path.join(dir, "README.md"), "not a migration");
      expect(await readMigrations(dir)).toEqual([
        { version: "0001_a", sql: "SELECT 1" },
        { version: "0002_b", sql: "SELECT 2" },
      ]);
    } finally {
      await rm(dir, { recursive: true });
    }
  });
});
