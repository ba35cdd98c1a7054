/**
 * CANOPY_REDIS_KEY_PREFIX: two deployments sharing one Redis must not share cached answers, rate-limit
 * counters or sessions, so every key the gateway writes starts with the prefix.
 */
import { randomBytes } from "node:crypto";
import { signedInUser, startStack, waitFor, type Stack } from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 30_000);
afterAll(() => stack.stop());

test("every key the gateway writes carries its prefix", async () => {
  const prefix = `t${randomBytes(4).toString("hex")}:`;
  const gw = await stack.addGateway({ CANOPY_REDIS_KEY_PREFIX: prefix });
  const { secret } = await signedInUser(stack);
  expect((await gw.get("/api/v4/user", { token: secret })).status).toBe(200);
  expect((await gw.get("/users/sign_in")).status).toBe(200);
  const kindsNow = async () => {
    const keys = await stack.redis.keys(`${prefix}*`);
    return [...new Set(keys.map((k) => k.slice(prefix.length).split(":")[0]))].sort();
  };
  // The day's activity is recorded after the answer.
  await waitFor("the activity key", async () => ((await kindsNow()).includes("activity") ? true : undefined));
  expect(await kindsNow()).toEqual(["activity", "authn", "rl", "session"]);
});

test("an invalid prefix stops the gateway from starting, naming the variable", async () => {
  await expect(stack.addGateway({ CANOPY_REDIS_KEY_PREFIX: "has space" })).rejects.toThrow(
    /CANOPY_REDIS_KEY_PREFIX/,
  );
});
