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
  // NATS is shared by every run on the machine: the run's settings snapshot gets its own KV bucket.
  process.env.CANOPY_SETTINGS_BUCKET ??= name;
};
