// One throwaway PostgreSQL database per test run; every suite reads its URL from the environment.
const { Client } = require("pg");
const crypto = require("node:crypto");

module.exports = async function globalSetup() {
  const adminUrl =
    process.env.CANOPY_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `canopy_test_${crypto.randomBytes(4).toString("hex")}`;
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  process.env.CANOPY_DATABASE_URL = url.toString();
  process.env.CANOPY_TEST_DATABASE = name;
  // NATS is shared by every run on the machine: the run's settings snapshot gets its own KV bucket,
  // and its events their own stream (a durable consumer reads the whole stream; another database's
  // events there would carry ids that mean other users here). Always the run's own, so a developer's
  // CANOPY_EVENT_STREAM is never read, nor deleted by the teardown.
  process.env.CANOPY_SETTINGS_BUCKET ??= name;
  process.env.CANOPY_EVENT_STREAM = name.toUpperCase();
  // Every suite's groups service shares the run's schema: one removing expired memberships when it
  // starts would take other suites' rows from under them. expired-removal.test.ts runs it itself.
  process.env.CANOPY_GROUPS_EXPIRED_REMOVAL_MS = "0";
};
