/**
 * Users' statuses (GitLab's GET/PUT /user/status, GET /users/:id_or_username/status): the entity's
 * exact shape, PUT clearing what it is not given, the model's 400 bodies, clear_status_after
 * expiring a status when read, and who may read and write.
 */
import {
  createToken,
  createUser,
  expectError,
  expectJsonHeaders,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  insufficientScope,
  type SignedIn,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const NONE = { emoji: null, message: null, availability: null, message_html: "", clear_status_at: null };
const stored = async (userId: number) =>
  (
    await stack.db.query("SELECT emoji, message, availability FROM auth.user_statuses WHERE user_id = $1", [
      userId,
    ])
  ).rows;
const setStatus = (who: SignedIn, json: unknown) =>
  stack.gw.put("/api/v4/user/status", { token: who.secret, json });

describe("GET and PUT /user/status", () => {
  it("shows no status as nulls, sets one, and PUT clears what it is not given", async () => {
    const me = await signedInUser(stack);
    const none = await stack.gw.get("/api/v4/user/status", { token: me.secret });
    expect({ status: none.status, body: none.body }).toEqual({ status: 200, body: NONE });
    expectJsonHeaders(none);

    const set = await setStatus(me, {
      emoji: "coffee",
      message: "On <b>break</b> & back",
      availability: "busy",
    });
    expect({ status: set.status, body: set.body }).toEqual({
      status: 200,
      body: {
        emoji: "coffee",
        message: "On <b>break</b> & back",
        availability: "busy",
        message_html: "On &lt;b&gt;break&lt;/b&gt; &amp; back",
        clear_status_at: null,
      },
    });
    expect((await stack.gw.get("/api/v4/user/status", { token: me.secret })).body).toEqual(set.body);

    // A message without an emoji gets the default one; the availability given before stays.
    const message = await setStatus(me, { message: "hello" });
    expect(message.body).toEqual({
      emoji: "speech_balloon",
      message: "hello",
      availability: "busy",
      message_html: "hello",
      clear_status_at: null,
    });
    // An emoji alone clears the message (PUT).
    expect((await setStatus(me, { emoji: "tada" })).body).toEqual({
      emoji: "tada",
      message: null,
      availability: "busy",
      message_html: "",
      clear_status_at: null,
    });
    // Nothing given removes the status.
    expect((await setStatus(me, {})).body).toEqual(NONE);
    expect(await stored(me.user.id)).toEqual([]);
  });

  it("PATCH changes only what it is given, and nothing given answers null without a change", async () => {
    const me = await signedInUser(stack);
    const patch = (json: unknown) =>
      stack.gw.request("PATCH", "/api/v4/user/status", { token: me.secret, json });
    await setStatus(me, {
      emoji: "coffee",
      message: "brewing",
      availability: "busy",
      clear_status_after: "8_hours",
    });
    const before = (await stack.gw.get("/api/v4/user/status", { token: me.secret })).body as Record<
      string,
      unknown
    >;

    const empty = await patch({});
    expect({ status: empty.status, body: empty.body }).toEqual({ status: 200, body: null });
    expect((await stack.gw.get("/api/v4/user/status", { token: me.secret })).body).toEqual(before);

    // The message and clear time stay; a blank availability keeps the one set (as for PUT).
    const emoji = await patch({ emoji: "tada", availability: "" });
    expect({ status: emoji.status, body: emoji.body }).toEqual({
      status: 200,
      body: { ...before, emoji: "tada" },
    });
    // A message alone: GitLab's service gives a blank emoji its default, so the emoji is reset.
    expect((await patch({ message: "back soon" })).body).toEqual({
      ...before,
      emoji: "speech_balloon",
      message: "back soon",
      message_html: "back soon",
    });
    // Only a clear time: neither emoji, message nor availability given, so the status goes (GitLab's).
    expect((await patch({ clear_status_after: "1_day" })).body).toEqual(NONE);
    expectError(await patch({ emoji: "not_an_emoji" }), 400, {
      message: { emoji: ["is not a valid emoji name"] },
    });
    expectError(
      await stack.gw.request("PATCH", "/api/v4/user/status", { json: { emoji: "tada" } }),
      401,
      UNAUTHORIZED,
    );
  });

  it("renders message_html through GitLab's emoji pipeline: codes and unicode emoji as <gl-emoji>", async () => {
    const me = await signedInUser(stack);
    const message = `I crave coffee :coffee: 👍🏽 :not_an_emoji: x:smile: "<img src=x onerror=alert(1)>"`;
    const set = await setStatus(me, { emoji: "coffee", message });
    const html =
      'I crave coffee <gl-emoji title="hot beverage" data-name="coffee" data-unicode-version="6.0">☕</gl-emoji> ' +
      '<gl-emoji title="thumbs up: medium skin tone" data-name="thumbsup_tone3" data-unicode-version="8.0">👍🏽</gl-emoji> ' +
      ':not_an_emoji: x:smile: "&lt;img src=x onerror=alert(1)&gt;"';
    expect({ status: set.status, body: set.body }).toEqual({
      status: 200,
      body: { emoji: "coffee", message, availability: "not_set", message_html: html, clear_status_at: null },
    });
    expect((await stack.gw.get(`/api/v4/users/${me.user.id}/status`)).body).toMatchObject({
      message_html: html,
    });
  });

  it("sets clear_status_at from clear_status_after, and a status past it reads as none", async () => {
    const me = await signedInUser(stack);
    const before = Date.now();
    const set = await setStatus(me, { message: "lunch", clear_status_after: "30_minutes" });
    const clearAt = Date.parse((set.body as { clear_status_at: string }).clear_status_at);
    expect(clearAt).toBeGreaterThanOrEqual(before + 30 * 60_000 - 1000);
    expect(clearAt).toBeLessThanOrEqual(Date.now() + 30 * 60_000 + 1000);
    // The half hour has passed (no sleeping: the stored time is moved back).
    await stack.db.query(
      "UPDATE auth.user_statuses SET clear_status_at = now() - interval '1 second' WHERE user_id = $1",
      [me.user.id],
    );
    expect((await stack.gw.get("/api/v4/user/status", { token: me.secret })).body).toEqual(NONE);
    expect((await stack.gw.get(`/api/v4/users/${me.user.id}/status`)).body).toEqual(NONE);
    // A new status after the expired one starts afresh (no availability carried over).
    expect((await setStatus(me, { message: "back" })).body).toMatchObject({
      message: "back",
      availability: "not_set",
      clear_status_at: null,
    });
  });

  it("refuses a bad emoji, a long message, a bad availability or duration with 400 and keeps the status", async () => {
    const me = await signedInUser(stack);
    await setStatus(me, { emoji: "rocket", message: "kept" });
    expectError(await setStatus(me, { emoji: "not_an_emoji" }), 400, {
      message: { emoji: ["is not a valid emoji name"] },
    });
    expectError(await setStatus(me, { message: "x".repeat(101) }), 400, {
      message: { message: ["is too long (maximum is 100 characters)"] },
    });
    expectError(await setStatus(me, { emoji: "nope", message: "é".repeat(101) }), 400, {
      message: { emoji: ["is not a valid emoji name"], message: ["is too long (maximum is 100 characters)"] },
    });
    // 100 characters of astral-plane emoji are 100 characters, not 200 UTF-16 units.
    expect((await setStatus(me, { message: "🚀".repeat(100) })).status).toBe(200);
    await setStatus(me, { emoji: "rocket", message: "kept" });
    expectError(await setStatus(me, { availability: "away" }), 400, {
      error: "availability does not have a valid value",
    });
    expectError(await setStatus(me, { message: "m", clear_status_after: "2_hours" }), 400, {
      error: "clear_status_after does not have a valid value",
    });
    expect((await setStatus(me, { message: { $gt: "" } })).status).toBe(400);
    expect((await setStatus(me, { message: "a\u0000b" })).status).toBe(400);
    expect((await setStatus(me, { emoji: "'; DROP TABLE user_statuses; --" })).status).toBe(400);
    expect(await stored(me.user.id)).toEqual([{ emoji: "rocket", message: "kept", availability: "not_set" }]);
  });
});

describe("GET /users/:id_or_username/status", () => {
  it("shows anyone a user's status by id or username, and 404 for a missing user", async () => {
    const me = await signedInUser(stack);
    await setStatus(me, { emoji: "sunny", message: "hi" });
    const expected = {
      emoji: "sunny",
      message: "hi",
      availability: "not_set",
      message_html: "hi",
      clear_status_at: null,
    };
    const other = await signedInUser(stack);
    for (const token of [undefined, other.secret, me.secret]) {
      for (const ref of [me.user.id, me.user.username]) {
        const res = await stack.gw.get(`/api/v4/users/${ref}/status`, { token });
        expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: expected });
      }
    }
    expect((await stack.gw.get(`/api/v4/users/${other.user.id}/status`)).body).toEqual(NONE);
    expectError(await stack.gw.get("/api/v4/users/999999999/status"), 404, { message: "404 User Not Found" });
    for (const id of ["0", "99999999999999999999999"])
      expectError(await stack.gw.get(`/api/v4/users/${id}/status`), 404, { message: "404 User Not Found" });
    expectError(await stack.gw.get("/api/v4/users/no_such_user_here/status"), 404, {
      message: "404 User Not Found",
    });
  });

  it("shows the status of a user with a private profile (GitLab's read_user, not read_user_profile)", async () => {
    const hidden = await createUser(stack, { private_profile: true });
    const token = (await createToken(stack, hidden.id)).token;
    await stack.gw.put("/api/v4/user/status", { token, json: { emoji: "zzz" } });
    expect((await stack.gw.get(`/api/v4/users/${hidden.id}/status`)).body).toMatchObject({ emoji: "zzz" });
  });
});

describe("who may", () => {
  it("anonymous callers get 401 on /user/status; a read_user token reads but may not set", async () => {
    expectError(await stack.gw.get("/api/v4/user/status"), 401, UNAUTHORIZED);
    expectError(await stack.gw.put("/api/v4/user/status", { json: { emoji: "tada" } }), 401, UNAUTHORIZED);
    const reader = await signedInUser(stack, ["read_user"]);
    expect((await stack.gw.get("/api/v4/user/status", { token: reader.secret })).status).toBe(200);
    // The Users class registers read_user, so a refused token is told of it (as for PUT /users/:id).
    expectError(await setStatus(reader, { emoji: "tada" }), 403, insufficientScope("read_user api read_api"));
    expect(await stored(reader.user.id)).toEqual([]);
  });
});
