/**
 * The answer cache of group reads (http/answer-cache.ts): kept per caller and request, never served
 * after a write through any gateway, dropped by events for changes made without a request.
 */
import { randomBytes } from "node:crypto";
import { request } from "node:http";
import { gunzipSync } from "node:zlib";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { auth, groups } from "@canopy/protos";
import { signedInUser, startStack, unique, waitFor, type Gateway, type Stack } from "./support";

let stack: Stack;
let second: Gateway;
// A database and event stream of its own: other files' events, on the run's shared stream, would
// drop this file's kept answers at any moment (the drops are what it checks).
let db: ThrowawayDatabase;
beforeAll(async () => {
  db = await throwawayDatabase("canopy_test_answers_");
  const cached = {
    CANOPY_ANSWER_CACHE_SECONDS: "60",
    CANOPY_REDIS_KEY_PREFIX: `answers${randomBytes(3).toString("hex")}:`,
  };
  stack = await startStack({ env: db.env, gateways: [cached, cached] });
  second = stack.gateways[1]!;
});
afterAll(async () => {
  await stack.stop();
  await db.drop();
});

const describeOf = async (gw: Gateway, token: string, id: number) =>
  ((await gw.get(`/api/v4/groups/${id}`, { token })).body as { description: string }).description;

it("serves a repeated read from the cache: a change behind the API's back is not seen", async () => {
  const { secret } = await signedInUser(stack);
  const created = await stack.gw.post("/api/v4/groups", {
    token: secret,
    json: { name: "c", path: unique("cache_") },
  });
  const id = (created.body as { id: number }).id;
  expect(await describeOf(stack.gw, secret, id)).toBe("");
  await stack.db.query("UPDATE groups.namespaces SET description = 'behind' WHERE id = $1", [id]);
  // The row changed without any write or event the cache hears of: the kept answer is served.
  expect(await describeOf(stack.gw, secret, id)).toBe("");
  // A write through the other gateway makes every gateway answer afresh, at once.
  const other = await stack.gw.post("/api/v4/groups", {
    token: secret,
    json: { name: "o", path: unique("other_") },
  });
  expect(other.status).toBe(201);
  expect(await describeOf(stack.gw, secret, id)).toBe("behind");
});

it("reads its own writes on every gateway, with no wait", async () => {
  const { secret } = await signedInUser(stack);
  const path = unique("ryw_");
  const list = async (gw: Gateway) =>
    ((await gw.get(`/api/v4/groups?search=${path}`, { token: secret })).body as { path: string }[]).map(
      (g) => g.path,
    );
  expect(await list(second)).toEqual([]);
  expect(await list(second)).toEqual([]);
  await stack.gw.post("/api/v4/groups", { token: secret, json: { name: "r", path } });
  expect(await list(second)).toEqual([path]);
  const group = (await second.get(`/api/v4/groups/${path}`, { token: secret })).body as { id: number };
  await stack.gw.put(`/api/v4/groups/${group.id}`, { token: secret, json: { description: "edited" } });
  expect(await describeOf(second, secret, group.id)).toBe("edited");
});

it("keeps answers per caller: another user never gets a kept answer of someone else", async () => {
  const owner = await signedInUser(stack);
  const stranger = await signedInUser(stack);
  const path = unique("mine_");
  await stack.gw.post("/api/v4/groups", { token: owner.secret, json: { name: "m", path } });
  expect((await second.get(`/api/v4/groups/${path}`, { token: owner.secret })).status).toBe(200);
  expect((await second.get(`/api/v4/groups/${path}`, { token: stranger.secret })).status).toBe(404);
  expect((await second.get(`/api/v4/groups/${path}`)).status).toBe(404);
});

it("keeps the pagination headers with the body", async () => {
  const { secret } = await signedInUser(stack);
  const prefix = unique("pages_");
  for (let i = 0; i < 3; i++)
    await stack.gw.post("/api/v4/groups", { token: secret, json: { name: `p${i}`, path: `${prefix}${i}` } });
  const first = await second.get(`/api/v4/groups?search=${prefix}&per_page=2`, { token: secret });
  const again = await second.get(`/api/v4/groups?search=${prefix}&per_page=2`, { token: secret });
  for (const name of ["x-total", "x-total-pages", "x-next-page", "link"])
    expect(again.headers.get(name)).toBe(first.headers.get(name));
  expect(again.headers.get("x-total")).toBe("3");
  expect(again.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
});

it("drops answers when a change made without a request arrives as an event", async () => {
  const { secret } = await signedInUser(stack);
  const path = unique("evt_");
  const created = await stack.gw.post("/api/v4/groups", { token: secret, json: { name: "e", path } });
  const id = (created.body as { id: number }).id;
  expect(await describeOf(second, secret, id)).toBe("");
  // A change no gateway request made (as the groups service's schedulers and consumers make): the
  // service is called directly, so only its event can tell the gateways.
  const rpc = stack.groupsService.client(groups.GroupsServiceService);
  const root = await stack.authService
    .client(auth.AuthServiceService)
    .authenticate({ token: stack.rootToken });
  await rpc.updateGroup(
    groups.UpdateGroupRequest.fromPartial({
      actor: root.actor,
      group: { id },
      attributes: { description: "by event" },
    }),
  );
  await waitFor(
    "the event to drop the kept answer",
    async () => (await describeOf(second, secret, id)) === "by event",
  );
});

/** One GET with exactly these headers, the body's bytes as they came (fetch would inflate them). */
const rawGet = (url: string, headers: Record<string, string>) =>
  new Promise<{ headers: Record<string, unknown>; bytes: Buffer }>((resolve, reject) => {
    request(url, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => resolve({ headers: res.headers, bytes: Buffer.concat(parts) }));
    })
      .on("error", reject)
      .end();
  });

it("replays a kept answer gzipped to a client that accepts gzip, and as is to one that does not", async () => {
  const { secret } = await signedInUser(stack);
  const path = unique("gz_");
  // Text that is not ASCII, in an answer long enough (over 1 KB) to be worth compressing.
  const description = "ünïcødé ✓ ".repeat(25);
  const created = await stack.gw.post("/api/v4/groups", {
    token: secret,
    json: { name: "g", path, description },
  });
  expect(created.body).toMatchObject({ description });
  const url = `${second.base}/api/v4/groups/${path}`;
  const asGzipClient = { "PRIVATE-TOKEN": secret, "Accept-Encoding": "gzip, deflate" };
  const first = await rawGet(url, asGzipClient);
  // The first answer is made fresh and goes out as is; replays are compressed once made.
  expect(first.headers["content-encoding"]).toBeUndefined();
  expect(first.headers["vary"]).toMatch(/Accept-Encoding/i);
  const plain = JSON.parse(first.bytes.toString("utf8")) as { description: string };
  expect(plain.description).toBe(description);
  expect(first.bytes.length).toBeGreaterThan(1024);
  let zipped = first;
  await waitFor("a gzipped replay", async () => {
    zipped = await rawGet(url, asGzipClient);
    return zipped.headers["content-encoding"] === "gzip";
  });
  expect(zipped.headers["content-type"]).toBe("application/json");
  expect(zipped.bytes.length).toBeLessThan(first.bytes.length);
  expect(gunzipSync(zipped.bytes).equals(first.bytes)).toBe(true);
  const identity = await rawGet(url, { "PRIVATE-TOKEN": secret, "Accept-Encoding": "identity" });
  expect(identity.headers["content-encoding"]).toBeUndefined();
  expect(identity.bytes.equals(first.bytes)).toBe(true);
  const none = await rawGet(url, { "PRIVATE-TOKEN": secret });
  expect(none.headers["content-encoding"]).toBeUndefined();
  expect(none.headers["content-type"]).toBe("application/json");
  expect(none.bytes.equals(first.bytes)).toBe(true);
});
