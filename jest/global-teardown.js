const { Client } = require("pg");
const { connect } = require("nats");

/** Deletes the run's JetStream streams (a KV bucket is the stream KV_<name>); missing ones are fine. */
async function deleteStreams(names) {
  const nc = await connect({ servers: (process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222").split(",") });
  try {
    const jsm = await nc.jetstreamManager();
    for (const name of names) await jsm.streams.delete(name).catch(() => undefined);
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
  // Only what global-setup named after the run: never a stream someone else uses.
  const streams = [];
  const bucket = process.env.CANOPY_SETTINGS_BUCKET;
  if (bucket?.startsWith("canopy_test_")) streams.push(`KV_${bucket}`);
  const events = process.env.CANOPY_EVENT_STREAM;
  if (events?.startsWith("CANOPY_TEST_")) streams.push(events);
  await deleteStreams(streams).catch(() => undefined);
};
