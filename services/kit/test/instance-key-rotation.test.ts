/**
 * The kit's part of an instance key rotation: which keys a service loads, sealed values that open
 * under either key, and the walk that moves a table's sealed values to the current key (rows the
 * walk must not touch stay as they were).
 */
import { randomBytes } from "node:crypto";
import { ensureInstanceSecret, loadInstanceKeys, resealAll, SealingKeys } from "@canopy/kit";
import { throwawaySchema, type ThrowawaySchema } from "@canopy/kit/testing";

const keyA = randomBytes(24).toString("base64url");
const keyB = randomBytes(24).toString("base64url");
let schema: ThrowawaySchema;
beforeAll(async () => {
  schema = await throwawaySchema({ prefix: "test_rotation_" });
  await schema.pool.query(
    "CREATE TABLE IF NOT EXISTS instance_secrets (name text PRIMARY KEY, value bytea NOT NULL)",
  );
  await schema.pool.query("CREATE TABLE things (id bigint PRIMARY KEY, secret bytea, other bytea)");
});
afterAll(() => schema?.drop());

const sealing = async (config: Record<string, string>) =>
  new SealingKeys(await loadInstanceKeys(schema.pool, "test_key", config), "things");

it("loads the configured key, the previous one, and `generated` as the key the database kept", async () => {
  const generated = await ensureInstanceSecret(schema.pool, "test_key", randomBytes(32));
  expect((await loadInstanceKeys(schema.pool, "test_key", {})).current).toEqual(generated);
  const moving = await loadInstanceKeys(schema.pool, "test_key", {
    CANOPY_SECRET_KEY: keyA,
    CANOPY_SECRET_KEY_PREVIOUS: "generated",
  });
  expect(moving.previous).toEqual(generated);
  expect(moving.current).not.toEqual(generated);
  // The same key twice is no rotation.
  expect(
    (
      await loadInstanceKeys(schema.pool, "test_key", {
        CANOPY_SECRET_KEY: keyA,
        CANOPY_SECRET_KEY_PREVIOUS: keyA,
      })
    ).previous,
  ).toBeNull();
  // `generated` where nothing was ever generated names no key, and none is made.
  expect(
    (
      await loadInstanceKeys(schema.pool, "never_made", {
        CANOPY_SECRET_KEY: keyA,
        CANOPY_SECRET_KEY_PREVIOUS: "generated",
      })
    ).previous,
  ).toBeNull();
  const { rowCount } = await schema.pool.query("SELECT 1 FROM instance_secrets WHERE name = 'never_made'");
  expect(rowCount).toBe(0);
});

it("opens what either key sealed, and only the current key's values without a rotation", async () => {
  const old = await sealing({ CANOPY_SECRET_KEY: keyA });
  const rotating = await sealing({ CANOPY_SECRET_KEY: keyB, CANOPY_SECRET_KEY_PREVIOUS: keyA });
  const after = await sealing({ CANOPY_SECRET_KEY: keyB });
  const sealed = old.seal("hunter2", "thing:1");
  expect(rotating.open(sealed, "thing:1")).toBe("hunter2");
  expect(() => after.open(sealed, "thing:1")).toThrow();
  // The context still binds: a value copied onto another row does not open, under either key.
  expect(() => rotating.open(sealed, "thing:2")).toThrow();
  expect(rotating.reseal(rotating.seal("x", "thing:1"), "thing:1")).toBeUndefined();
  expect(after.open(rotating.reseal(sealed, "thing:1")!, "thing:1")).toBe("hunter2");
});

it("moves every sealed value of a table to the current key, batch by batch", async () => {
  const old = await sealing({ CANOPY_SECRET_KEY: keyA });
  const rotating = await sealing({ CANOPY_SECRET_KEY: keyB, CANOPY_SECRET_KEY_PREVIOUS: keyA });
  const after = await sealing({ CANOPY_SECRET_KEY: keyB });
  const rows = 250;
  for (let id = 1; id <= rows; id++)
    await schema.pool.query("INSERT INTO things (id, secret, other) VALUES ($1, $2, $3)", [
      id,
      old.seal(`secret ${id}`, `thing:${id}:secret`),
      // Some rows already under the new key, some without a value.
      id % 3 === 0 ? null : rotating.seal(`other ${id}`, `thing:${id}:other`),
    ]);
  const sealed = {
    table: "things",
    key: "id",
    columns: ["secret", "other"],
    contextOf: (id: string, c: string) => `thing:${id}:${c}`,
  };
  expect(await resealAll(schema.pool, rotating, sealed)).toBe(rows);
  const { rows: stored } = await schema.pool.query("SELECT id::int, secret, other FROM things ORDER BY id");
  for (const row of stored) {
    expect(after.open(row.secret, `thing:${row.id}:secret`)).toBe(`secret ${row.id}`);
    if (row.id % 3 === 0) expect(row.other).toBeNull();
    else expect(after.open(row.other, `thing:${row.id}:other`)).toBe(`other ${row.id}`);
  }
  // A second walk (another replica's, or the next start's) finds nothing left to move.
  expect(await resealAll(schema.pool, rotating, sealed)).toBe(0);
});
