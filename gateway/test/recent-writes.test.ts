/**
 * The gateway's memory of where callers' writes reached the event stream (http/recent-writes.ts):
 * one Redis hash per user, only ever raised, for a short while.
 */
import { connectRedis, loadConfig, baseConfigSchema, type RedisClient } from "@canopy/kit";
import { quietLog, unique } from "@canopy/kit/testing";
import { RecentWrites } from "../src/http/recent-writes";

let redis: RedisClient;
beforeAll(async () => {
  redis = await connectRedis(loadConfig(baseConfigSchema).CANOPY_REDIS_URL, quietLog);
});
afterAll(() => redis.quit());

const writesWith = (ttlMs: number) => {
  const keyPrefix = `${unique("rw")}:`;
  return { keyPrefix, writes: new RecentWrites(redis, quietLog, { keyPrefix, ttlMs }) };
};

it("keeps each context's furthest position for the caller and the users named, never lowering it", async () => {
  const { writes } = writesWith(5_000);
  await writes.remember([1, 2], new Map([["groups", 10]]));
  await writes.remember(
    [1],
    new Map([
      ["groups", 5],
      ["auth", 3],
    ]),
  );
  expect(await writes.of(1)).toEqual(
    new Map([
      ["groups", 10],
      ["auth", 3],
    ]),
  );
  expect(await writes.of(2)).toEqual(new Map([["groups", 10]]));
  expect(await writes.of(3)).toBeUndefined();
});

it("forgets them after its time to live, and keeps nothing when turned off", async () => {
  const { keyPrefix, writes } = writesWith(5_000);
  await writes.remember([7], new Map([["groups", 1]]));
  const ttl = await redis.pTTL(`${keyPrefix}writes:user:7`);
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(5_000);

  const off = writesWith(0);
  await off.writes.remember([7], new Map([["groups", 1]]));
  expect(await redis.exists(`${off.keyPrefix}writes:user:7`)).toBe(0);
  expect(await off.writes.of(7)).toBeUndefined();
});
