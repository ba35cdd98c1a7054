const { Client } = require("pg");

module.exports = async function globalTeardown() {
  const name = process.env.CANOPY_TEST_DATABASE;
  if (!name) return;
  const adminUrl =
    process.env.CANOPY_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
};
