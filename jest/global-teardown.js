const { Client } = require("pg");
const { connect } = require("nats");

/** Removes the run's settings bucket (a KV bucket is the stream KV_<name>). */
async function dropSettingsBucket(name) {
  const nc = await connect({ servers: (process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222").split(",") });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(`KV_${name}`).catch(() => undefined);
  } finally {
    await nc.close();
  }
}

module.exports = async function globalTeardown() {
  const name = process.env.CANOPY_TEST_DATABASE;
  if (!name) return;
  const adminUrl =
    process.env.CANOPY_TEST_ADMIN_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await client.end();
  const bucket = process.env.CANOPY_SETTINGS_BUCKET;
  if (bucket?.startsWith("canopy_test_")) await dropSettingsBucket(bucket).catch(() => undefined);
};
