import {
  expectError,
  expectJsonHeaders,
  signedInUser,
  startStack,
  unique,
  EXTERNAL_URL,
  FORBIDDEN,
  ISO_TIME,
  UNAUTHORIZED,
  type SignedIn,
  type Stack,
} from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const NOT_FOUND = { message: "404 Not found" };

async function groupOf(owner: SignedIn, extra: Record<string, unknown> = {}) {
  const path = unique("mg_");
  const res = await stack.gw.post("/api/v4/groups", {
    token: owner.secret,
    json: { name: path, path, ...extra },
  });
  if (res.status !== 201) throw new Error(`creating a group: ${res.status} ${res.text}`);
  return res.body as { id: number; full_path: string };
}

const add = (token: string, groupId: number | string, json: Record<string, unknown>) =>
  stack.gw.post(`/api/v4/groups/${groupId}/members`, { token, json });

describe("group members over HTTP", () => {
  it("adds a user created a moment ago (201, Member) and lists them with every pagination header", async () => {
    const owner = await signedInUser(stack);
    const g = await groupOf(owner);
    // Made through auth and added at once: the groups service may not have its copy yet.
    const fresh = await signedInUser(stack);
    // Whether or not auth's event has arrived yet, make the copy missing: only the hint can fill it.
    await stack.db.query("DELETE FROM groups.users WHERE id = $1", [fresh.user.id]);
    const added = await add(owner.secret, g.id, {
      user_id: fresh.user.id,
      access_level: 30,
      expires_at: "2999-12-31",
    });
    expect(added.status).toBe(201);
    expectJsonHeaders(added);
    expect(added.body).toEqual({
      id: fresh.user.id,
      username: fresh.user.username,
      name: fresh.user.name,
      state: "active",
      locked: false,
      avatar_url: null,
      web_url: `${EXTERNAL_URL}/${fresh.user.username}`,
      access_level: 30,
      created_at: ISO_TIME,
      created_by: expect.objectContaining({ id: owner.user.id, username: owner.user.username }),
      expires_at: "2999-12-31",
      membership_state: "active",
    });

    const list = await stack.gw.get(`/api/v4/groups/${encodeURIComponent(g.full_path)}/members?per_page=1`, {
      token: fresh.secret,
    });
    expect(list.status).toBe(200);
    expect((list.body as { id: number }[]).map((m) => m.id)).toEqual([owner.user.id]);
    expect(list.headers.get("x-total")).toBe("2");
    expect(list.headers.get("x-total-pages")).toBe("2");
    expect(list.headers.get("x-page")).toBe("1");
    expect(list.headers.get("x-per-page")).toBe("1");
    expect(list.headers.get("x-next-page")).toBe("2");
    expect(list.headers.get("x-prev-page")).toBe("");
    expect(list.headers.get("link")).toContain('rel="next"');
    expect(list.headers.get("link")).toContain(`${EXTERNAL_URL}/api/v4/groups/`);

    const filtered = await stack.gw.get(`/api/v4/groups/${g.id}/members?user_ids=${fresh.user.id}`, {
      token: owner.secret,
    });
    expect((filtered.body as { id: number }[]).map((m) => m.id)).toEqual([fresh.user.id]);
    const one = await stack.gw.get(`/api/v4/groups/${g.id}/members/${fresh.user.id}`, {
      token: owner.secret,
    });
    expect(one.body).toMatchObject({ id: fresh.user.id, access_level: 30 });
    const all = await stack.gw.get(`/api/v4/groups/${g.id}/members/all/${owner.user.id}`, {
      token: owner.secret,
    });
    expect(all.body).toMatchObject({ id: owner.user.id, access_level: 50 });
  });

  it("answers GitLab's errors for POST", async () => {
    const owner = await signedInUser(stack);
    const dev = await signedInUser(stack);
    const user = await signedInUser(stack);
    const g = await groupOf(owner);
    expect((await add(owner.secret, g.id, { user_id: dev.user.id, access_level: 30 })).status).toBe(201);

    expectError(await add("", g.id, { user_id: user.user.id, access_level: 30 }), 401, UNAUTHORIZED);
    expectError(await add(owner.secret, g.id, { access_level: 30 }), 400, {
      error: "user_id, username are missing, at least one parameter must be provided",
    });
    expectError(await add(owner.secret, g.id, { user_id: 1, username: "x", access_level: 30 }), 400, {
      error: "user_id, username are mutually exclusive",
    });
    expectError(await add(owner.secret, g.id, { user_id: user.user.id }), 400, {
      error: "access_level is missing",
    });
    expectError(await add(owner.secret, g.id, { user_id: user.user.id, access_level: "x" }), 400, {
      error: "access_level is invalid",
    });
    expectError(
      await add(owner.secret, g.id, { user_id: user.user.id, access_level: 30, expires_at: "2020-02-30" }),
      400,
      { error: "expires_at is invalid" },
    );
    expectError(await add(dev.secret, g.id, { user_id: user.user.id, access_level: 30 }), 403, FORBIDDEN);
    expectError(await add(user.secret, g.id, { user_id: user.user.id, access_level: 30 }), 404, {
      message: "404 Group Not Found",
    });
    expectError(await add(owner.secret, g.id, { user_id: dev.user.id, access_level: 30 }), 409, {
      message: "Member already exists",
    });
    expectError(await add(owner.secret, g.id, { user_id: 999_999_999, access_level: 30 }), 404, {
      message: "404 User Not Found",
    });
    expectError(await add(owner.secret, g.id, { username: unique("nobody_"), access_level: 30 }), 404, {
      message: "404 User Not Found",
    });
    expectError(await add(owner.secret, g.id, { user_id: user.user.id, access_level: 35 }), 400, {
      message: { access_level: ["is not included in the list"] },
    });
    expectError(
      await add(owner.secret, g.id, { user_id: user.user.id, access_level: 30, expires_at: "2001-01-01" }),
      400,
      { message: { expires_at: ["cannot be a date in the past"] } },
    );
    const list = await stack.gw.get(`/api/v4/groups/${g.id}/members`, { token: owner.secret });
    expect((list.body as unknown[]).length).toBe(2);

    const byName = await add(owner.secret, g.id, { username: user.user.username, access_level: 20 });
    expect(byName.status).toBe(201);
    expect(byName.body).toMatchObject({ id: user.user.id, access_level: 20 });
  });

  it("adds several users at once (comma-separated ids)", async () => {
    const owner = await signedInUser(stack);
    const a = await signedInUser(stack);
    const b = await signedInUser(stack);
    const g = await groupOf(owner);
    const res = await add(owner.secret, g.id, { user_id: `${a.user.id},${b.user.id}`, access_level: 20 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ status: "success" });
    const list = await stack.gw.get(`/api/v4/groups/${g.id}/members`, { token: owner.secret });
    expect((list.body as { id: number; access_level: number }[]).map((m) => [m.id, m.access_level])).toEqual([
      [owner.user.id, 50],
      [a.user.id, 20],
      [b.user.id, 20],
    ]);
  });

  it("reads need a user and read_group_member; a member that is none is 404 Not found", async () => {
    const owner = await signedInUser(stack);
    const stranger = await signedInUser(stack);
    const g = await groupOf(owner);
    const pub = await groupOf(owner, { visibility: "public" });
    for (const path of [
      "members",
      "members/all",
      `members/${owner.user.id}`,
      `members/all/${owner.user.id}`,
    ]) {
      expectError(await stack.gw.get(`/api/v4/groups/${pub.id}/${path}`), 401, UNAUTHORIZED);
      expectError(await stack.gw.get(`/api/v4/groups/${g.id}/${path}`, { token: stranger.secret }), 404, {
        message: "404 Group Not Found",
      });
      expect(
        (await stack.gw.get(`/api/v4/groups/${pub.id}/${path}`, { token: stranger.secret })).status,
      ).toBe(200);
    }
    expectError(
      await stack.gw.get(`/api/v4/groups/${pub.id}/members/${stranger.user.id}`, { token: stranger.secret }),
      404,
      NOT_FOUND,
    );
    expectError(
      await stack.gw.get(`/api/v4/groups/${pub.id}/members/all/${stranger.user.id}`, {
        token: stranger.secret,
      }),
      404,
      NOT_FOUND,
    );
    expectError(await stack.gw.get(`/api/v4/groups/${pub.id}/members/abc`, { token: owner.secret }), 400, {
      error: "user_id is invalid",
    });
    expectError(
      await stack.gw.get(`/api/v4/groups/${pub.id}/members?user_ids=x`, { token: owner.secret }),
      400,
      {
        error: "user_ids is invalid",
      },
    );
  });

  it("updates a member (200), refuses the last Owner and bad values", async () => {
    const owner = await signedInUser(stack);
    const dev = await signedInUser(stack);
    const g = await groupOf(owner);
    await add(owner.secret, g.id, { user_id: dev.user.id, access_level: 30, expires_at: "2999-01-01" });
    const put = (token: string, userId: number, json: Record<string, unknown>) =>
      stack.gw.put(`/api/v4/groups/${g.id}/members/${userId}`, { token, json });
    const res = await put(owner.secret, dev.user.id, { access_level: 40 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: dev.user.id, access_level: 40, expires_at: "2999-01-01" });
    const cleared = await put(owner.secret, dev.user.id, { access_level: 40, expires_at: "" });
    expect(cleared.body).toMatchObject({ expires_at: null });
    expectError(await put(owner.secret, dev.user.id, {}), 400, { error: "access_level is missing" });
    expectError(await put(owner.secret, dev.user.id, { access_level: 1 }), 400, {
      message: { access_level: ["is not included in the list"] },
    });
    expectError(await put(dev.secret, dev.user.id, { access_level: 50 }), 403, FORBIDDEN);
    expectError(await put(owner.secret, owner.user.id, { access_level: 40 }), 403, FORBIDDEN);
    expectError(await put(owner.secret, 999_999_999, { access_level: 40 }), 404, NOT_FOUND);
    expectError(
      await stack.gw.put(`/api/v4/groups/${g.id}/members/${dev.user.id}`, { json: { access_level: 40 } }),
      401,
      UNAUTHORIZED,
    );
  });

  it("removes a member (204, empty), honours If-Unmodified-Since, refuses the last Owner", async () => {
    const owner = await signedInUser(stack);
    const dev = await signedInUser(stack);
    const guest = await signedInUser(stack);
    const g = await groupOf(owner);
    await add(owner.secret, g.id, { user_id: dev.user.id, access_level: 30 });
    await add(owner.secret, g.id, { user_id: guest.user.id, access_level: 10 });
    const del = (token: string, userId: number, headers: Record<string, string> = {}) =>
      stack.gw.delete(`/api/v4/groups/${g.id}/members/${userId}`, { token, headers });
    expectError(await del("", dev.user.id), 401, UNAUTHORIZED);
    expectError(await del(guest.secret, dev.user.id), 403, FORBIDDEN);
    expectError(
      await del(owner.secret, dev.user.id, { "If-Unmodified-Since": "Thu, 01 Jan 2004 00:00:00 GMT" }),
      412,
      {
        message: "412 Precondition Failed",
      },
    );
    const gone = await del(owner.secret, dev.user.id);
    expect(gone.status).toBe(204);
    expect(gone.text).toBe("");
    expect((await del(guest.secret, guest.user.id)).status).toBe(204);
    expectError(await del(owner.secret, dev.user.id), 404, NOT_FOUND);
    expectError(await del(owner.secret, owner.user.id), 403, FORBIDDEN);
  });
});
