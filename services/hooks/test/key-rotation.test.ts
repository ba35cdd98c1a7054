/**
 * Secrets at rest across an instance key rotation: a replica started with the new key and the old one
 * as CANOPY_SECRET_KEY_PREVIOUS moves every hook secret to the new key, so a later start with the new
 * key alone still opens them all. The groups service does the same for runners tokens, here from the
 * key it generated (`generated`) to a configured one.
 */
import { randomBytes } from "node:crypto";
import { groupsServiceDefinition } from "@canopy/groups";
import { createPool, loadInstanceKeys, SealingKeys, type Pool } from "@canopy/kit";
import { startTestService } from "@canopy/kit/testing";
import { HookSecrets } from "../src/secrets";
import { newGroup, newHook, newUser, startHooksStack, waitFor, type HooksStack } from "./support";

const keyA = randomBytes(24).toString("base64url");
const keyB = randomBytes(24).toString("base64url");
let stack: HooksStack;
beforeAll(async () => {
  stack = await startHooksStack({ hooksEnv: { CANOPY_SECRET_KEY: keyA } });
});
afterAll(() => stack?.stop());

/** Whether `open` opens every value of the query's rows (false on the first that does not). */
async function allOpen(db: Pool, sql: string, open: (row: Record<string, unknown>) => unknown) {
  const { rows } = await db.query(sql);
  try {
    rows.forEach(open);
    return rows.length > 0;
  } catch {
    return false;
  }
}

it("moves every hook secret to the new key", async () => {
  const owner = await newUser(stack);
  const group = await newGroup(stack, owner);
  const hook = await newHook(stack, group, owner, {
    token: "hook-token",
    custom_headers: [{ key: "X-Secret", value: "header-value" }],
    url_variables: [{ key: "part", value: "variable-value" }],
  });
  const after = await HookSecrets.load(stack.db, { CANOPY_SECRET_KEY: keyB });
  const openAll = (row: Record<string, unknown>) => {
    const id = Number(row.id);
    for (const attribute of ["url", "token", "url_variables", "custom_headers", "signing_secret"])
      after.open(id, attribute, row[`${attribute}_sealed`] as Buffer);
  };
  const sql = `SELECT * FROM hooks WHERE id = ${hook.id}`;
  expect(await allOpen(stack.db, sql, openAll)).toBe(false);

  await stack.addHooksReplica({ CANOPY_SECRET_KEY: keyB, CANOPY_SECRET_KEY_PREVIOUS: keyA });
  await waitFor("the hook's secrets under the new key", () => allOpen(stack.db, sql, openAll));
  const { rows } = await stack.db.query(sql);
  expect(after.open(hook.id, "token", rows[0].token_sealed)).toBe("hook-token");
  expect(JSON.parse(after.open(hook.id, "custom_headers", rows[0].custom_headers_sealed))).toEqual({
    "X-Secret": "header-value",
  });
});

it("moves runners tokens from the generated key to a configured one", async () => {
  const owner = await newUser(stack);
  const group = await newGroup(stack, owner);
  const db = createPool({ url: stack.database.url, schema: "groups" });
  try {
    const keys = new SealingKeys(
      await loadInstanceKeys(db, "instance_key", { CANOPY_SECRET_KEY: keyB }),
      "groups-runners-token",
    );
    const sql = `SELECT id, runners_token_encrypted FROM namespaces WHERE id = ${group.id}`;
    const openToken = (row: Record<string, unknown>) =>
      keys.open(row.runners_token_encrypted as Buffer, `group:${row.id}:runners_token`);
    expect(await allOpen(db, sql, openToken)).toBe(false);
    const replica = await startTestService(groupsServiceDefinition, {
      env: { ...stack.database.env, CANOPY_SECRET_KEY: keyB, CANOPY_SECRET_KEY_PREVIOUS: "generated" },
    });
    try {
      await waitFor("the runners token under the configured key", () => allOpen(db, sql, openToken));
    } finally {
      await replica.stop();
    }
  } finally {
    await db.end();
  }
});
