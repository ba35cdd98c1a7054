import {
  addMember,
  newGroup,
  newHook,
  newUser,
  startHooksStack,
  unique,
  type Group,
  type HooksStack,
  type User,
} from "./support";

let stack: HooksStack;
let owner: User;
let group: Group;
const base = () => `/api/v4/groups/${group.id}/hooks`;

beforeAll(async () => {
  stack = await startHooksStack();
  owner = await newUser(stack);
  group = await newGroup(stack, owner);
});
afterAll(() => stack?.stop());

const post = (json: Record<string, unknown>, token = owner.token) => stack.gw.post(base(), { token, json });
const put = (id: number, json: Record<string, unknown>, headers: Record<string, string> = {}) =>
  stack.gw.put(`${base()}/${id}`, { token: owner.token, json, headers });

describe("create", () => {
  it("answers 201 with GitLab's entity, the defaults, masked maps and the signing secret once", async () => {
    const res = await post({
      url: `${stack.receiver.url}/{path}`,
      token: "s3cret",
      name: "My hook",
      description: "déjà vu ✓",
      member_events: true,
      url_variables: [{ key: "path", value: "secret-path" }],
      custom_headers: [{ key: "X-Custom", value: "header-secret" }],
    });
    expect(res.status).toBe(201);
    const hook = res.body as Record<string, unknown>;
    expect(Object.keys(hook).slice(0, 6)).toEqual([
      "id",
      "url",
      "name",
      "description",
      "created_at",
      "push_events",
    ]);
    expect(hook).toMatchObject({
      url: `${stack.receiver.url}/{path}`,
      name: "My hook",
      description: "déjà vu ✓",
      group_id: group.id,
      push_events: true,
      member_events: true,
      subgroup_events: false,
      repository_update_events: false,
      enable_ssl_verification: true,
      alert_status: "executable",
      disabled_until: null,
      url_variables: [{ key: "path" }],
      custom_headers: [{ key: "X-Custom" }],
      branch_filter_strategy: "wildcard",
      push_events_branch_filter: null,
      custom_webhook_template: null,
    });
    expect(hook.token).toBeUndefined();
    expect(hook.signing_secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(hook.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const shown = await stack.gw.get(`${base()}/${hook.id}`, { token: owner.token });
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty("signing_secret");
    expect(shown.text).not.toContain("secret-path");
    expect(shown.text).not.toContain("header-secret");
    expect(shown.text).not.toContain("s3cret");

    // At rest: none of the secrets in clear.
    const { rows } = await stack.db.query("SELECT * FROM hooks WHERE id = $1", [hook.id]);
    const dump = JSON.stringify(rows[0], (_, v) =>
      v?.type === "Buffer" ? Buffer.from(v.data).toString("latin1") : v,
    );
    for (const secret of [
      "secret-path",
      "header-secret",
      "s3cret",
      stack.receiver.url,
      hook.signing_secret as string,
    ])
      expect(dump).not.toContain(secret);
  });

  it.each([
    [{}, 400, { error: "url is missing" }],
    [{ url: "ftp://example.com/x" }, 422, { error: "Invalid url given" }],
    [{ url: "not a url" }, 422, { error: "Invalid url given" }],
    [{ url: "" }, 422, { error: "Invalid url given" }],
    [{ url: "http://example.com/{missing}" }, 422, { error: "Invalid url given" }],
    [{ url: "http://example.com", token: "a\nb" }, 422, { error: "Token is invalid" }],
    [
      { url: "http://example.com", push_events_branch_filter: "a..b" },
      422,
      { error: "Invalid branch filter given" },
    ],
    [
      { url: "http://example.com", push_events_branch_filter: "(", branch_filter_strategy: "regex" },
      422,
      { error: "Invalid branch filter given" },
    ],
    [
      { url: "http://example.com", custom_headers: [{ key: "bad key", value: "v" }] },
      422,
      { error: "Custom headers must be a valid json schema" },
    ],
    [
      { url: "http://example.com/{a}", url_variables: [{ key: "a", value: "" }] },
      422,
      { error: "Url variables must be a valid json schema" },
    ],
    [
      { url: "http://example.com", custom_webhook_template: "x".repeat(4097) },
      422,
      { error: "Custom webhook template is too long (maximum is 4096 characters)" },
    ],
    [
      { url: "http://example.com", branch_filter_strategy: "glob" },
      400,
      { error: "branch_filter_strategy does not have a valid value" },
    ],
    [{ url: "http://example.com", push_events: "maybe" }, 400, { error: "push_events is invalid" }],
    [
      { url: "http://example.com", url_variables: [{ key: "a" }] },
      400,
      { error: "url_variables[0][value] is missing" },
    ],
    [{ url: "http://example.com", custom_headers: "nope" }, 400, { error: "custom_headers is invalid" }],
    [
      { url: `http://example.com/${"a".repeat(10_001)}` },
      400,
      { error: "url must be at the most 10000 characters long" },
    ],
  ])(
    "refuses bad create input #%# with its GitLab answer and creates nothing",
    async (json, status, body) => {
      const before = await stack.gw.get(`${base()}?per_page=100`, { token: owner.token });
      const res = await post(json);
      expect([res.status, res.body]).toEqual([status, body]);
      const after = await stack.gw.get(`${base()}?per_page=100`, { token: owner.token });
      expect((after.body as unknown[]).length).toBe((before.body as unknown[]).length);
    },
  );

  it("keeps injection-looking and unicode text as it was given", async () => {
    const name = "'; DROP TABLE hooks; -- <script>alert(1)</script> 名前";
    const hook = await newHook(stack, group, owner, { name, url: "http://例え.テスト/path?q='1'" });
    expect(hook.name).toBe(name);
    expect(hook.url).toBe("http://例え.テスト/path?q='1'");
  });

  it("allows 50 hooks per group, then answers GitLab's limit error", async () => {
    const g = await newGroup(stack, owner);
    await Promise.all(
      Array.from({ length: 50 }, () =>
        stack.gw.post(`/api/v4/groups/${g.id}/hooks`, {
          token: owner.token,
          json: { url: "http://example.com" },
        }),
      ),
    );
    const res = await stack.gw.post(`/api/v4/groups/${g.id}/hooks`, {
      token: owner.token,
      json: { url: "http://example.com" },
    });
    expect([res.status, res.body]).toEqual([422, { error: "Maximum number of group hooks (50) exceeded" }]);
    const list = await stack.gw.get(`/api/v4/groups/${g.id}/hooks?per_page=100`, { token: owner.token });
    expect((list.body as unknown[]).length).toBe(50);
    expect(list.headers.get("x-total")).toBe("50");
  });
});

describe("read", () => {
  it("lists the group's hooks with pagination headers, and 404 'Not found' for another group's", async () => {
    const g = await newGroup(stack, owner);
    const a = await newHook(stack, g, owner);
    const b = await newHook(stack, g, owner);
    const list = await stack.gw.get(`/api/v4/groups/${g.id}/hooks?per_page=1&page=2`, { token: owner.token });
    expect(list.status).toBe(200);
    expect((list.body as { id: number }[]).map((h) => h.id)).toEqual([b.id]);
    expect(list.headers.get("x-total")).toBe("2");
    expect(list.headers.get("x-page")).toBe("2");
    const other = await stack.gw.get(`${base()}/${a.id}`, { token: owner.token });
    expect([other.status, other.body]).toEqual([404, { message: "404 Not found" }]);
    for (const id of ["999999999", "0"]) {
      const missing = await stack.gw.get(`/api/v4/groups/${g.id}/hooks/${id}`, { token: owner.token });
      expect([missing.status, missing.body]).toEqual([404, { message: "404 Not found" }]);
    }
    const bad = await stack.gw.get(`/api/v4/groups/${g.id}/hooks/abc`, { token: owner.token });
    expect([bad.status, bad.body]).toEqual([400, { error: "hook_id is invalid" }]);
  });
});

describe("update", () => {
  it("changes what was sent, merges the maps, and answers GitLab's update errors", async () => {
    const hook = await newHook(stack, group, owner, {
      url: `${stack.receiver.url}/u/{a}`,
      token: "tok",
      url_variables: [{ key: "a", value: "1" }],
      custom_headers: [{ key: "X-One", value: "1" }],
    });
    const res = await put(hook.id, { custom_headers: [{ key: "X-Two", value: "2" }], issues_events: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issues_events: true,
      push_events: true,
      custom_headers: [{ key: "X-One" }, { key: "X-Two" }],
      url_variables: [{ key: "a" }],
    });
    const tokenOf = async () =>
      (await stack.db.query("SELECT token_sealed FROM hooks WHERE id = $1", [hook.id])).rows[0].token_sealed;
    expect(await tokenOf()).not.toBeNull();

    expect(await put(hook.id, {}).then((r) => [r.status, r.body])).toEqual([
      400,
      { error: "No parameters provided" },
    ]);
    expect(await put(hook.id, { url: "ftp://x" }).then((r) => [r.status, r.body])).toEqual([
      422,
      { error: "Invalid url given" },
    ]);
    expect(await put(hook.id, { token: "a\nb" }).then((r) => [r.status, r.body])).toEqual([
      422,
      { message: { token: ["is invalid"] } },
    ]);
    expect(await put(hook.id, { push_events_branch_filter: "x y" }).then((r) => [r.status, r.body])).toEqual([
      422,
      { error: "Invalid branch filter given" },
    ]);
    expect(
      await put(hook.id, { custom_headers: [{ key: "bad key", value: "1" }] }).then((r) => [
        r.status,
        r.body,
      ]),
    ).toEqual([422, { error: "Custom headers validation failed" }]);

    // A new url without a token drops the token, and a changed URL drops the custom headers.
    const moved = await put(hook.id, { url: `${stack.receiver.url}/moved` });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ url: `${stack.receiver.url}/moved`, custom_headers: [] });
    expect(await tokenOf()).toBeNull();

    const all = await put(hook.id, {
      branch_filter_strategy: "all_branches",
      push_events_branch_filter: "main",
    });
    expect(all.body).toMatchObject({
      branch_filter_strategy: "all_branches",
      push_events_branch_filter: null,
    });
    const regex = await put(hook.id, {
      branch_filter_strategy: "regex",
      push_events_branch_filter: "^fe.*$",
    });
    expect(regex.body).toMatchObject({
      branch_filter_strategy: "regex",
      push_events_branch_filter: "^fe.*$",
    });
  });

  it("answers 412 to PUT and DELETE when the hook changed after If-Unmodified-Since", async () => {
    const hook = await newHook(stack, group, owner);
    const past = new Date(Date.now() - 3600_000).toUTCString();
    const future = new Date(Date.now() + 3600_000).toUTCString();
    const stale = await put(hook.id, { name: "x" }, { "If-Unmodified-Since": past });
    expect([stale.status, stale.body]).toEqual([412, { message: "412 Precondition Failed" }]);
    const del = await stack.gw.delete(`${base()}/${hook.id}`, {
      token: owner.token,
      headers: { "If-Unmodified-Since": past },
    });
    expect([del.status, del.body]).toEqual([412, { message: "412 Precondition Failed" }]);
    expect((await put(hook.id, { name: "x" }, { "If-Unmodified-Since": future })).status).toBe(200);
    const ok = await stack.gw.delete(`${base()}/${hook.id}`, {
      token: owner.token,
      headers: { "If-Unmodified-Since": future },
    });
    expect(ok.status).toBe(204);
    const again = await stack.gw.delete(`${base()}/${hook.id}`, { token: owner.token });
    expect([again.status, again.body]).toEqual([404, { message: "404 Not found" }]);
  });
});

describe("url_variables and custom_headers routes", () => {
  it("sets and unsets keys with GitLab's answers", async () => {
    const hook = await newHook(stack, group, owner);
    const path = `${base()}/${hook.id}`;
    const t = { token: owner.token };
    expect((await stack.gw.put(`${path}/url_variables/abc`, { ...t, json: { value: "v" } })).status).toBe(
      204,
    );
    expect((await stack.gw.put(`${path}/custom_headers/X-Abc`, { ...t, json: { value: "v" } })).status).toBe(
      204,
    );
    const shown = await stack.gw.get(path, t);
    expect(shown.body).toMatchObject({ url_variables: [{ key: "abc" }], custom_headers: [{ key: "X-Abc" }] });

    const illegal = await stack.gw.put(`${path}/url_variables/bad-key`, { ...t, json: { value: "v" } });
    expect([illegal.status, illegal.body]).toEqual([422, { error: "Illegal key or value" }]);
    const tooLong = await stack.gw.put(`${path}/custom_headers/X-Long`, {
      ...t,
      json: { value: "v".repeat(2049) },
    });
    expect([tooLong.status, tooLong.body]).toEqual([422, { error: "Illegal key or value" }]);
    const noValue = await stack.gw.put(`${path}/custom_headers/X-Abc`, { ...t, json: {} });
    expect([noValue.status, noValue.body]).toEqual([400, { error: "value is missing" }]);

    expect((await stack.gw.delete(`${path}/url_variables/abc`, t)).status).toBe(204);
    expect((await stack.gw.delete(`${path}/custom_headers/X-Abc`, t)).status).toBe(204);
    const gone = await stack.gw.delete(`${path}/url_variables/abc`, t);
    expect([gone.status, gone.body]).toEqual([404, { message: "404 URL variable Not Found" }]);
    const goneHeader = await stack.gw.delete(`${path}/custom_headers/X-Abc`, t);
    expect([goneHeader.status, goneHeader.body]).toEqual([404, { message: "404 Custom header Not Found" }]);
    const noHook = await stack.gw.put(`${base()}/999999999/url_variables/abc`, {
      ...t,
      json: { value: "v" },
    });
    expect([noHook.status, noHook.body]).toEqual([404, { message: "404 Not found" }]);
  });

  it("rotates the signing secret, answering the new one once", async () => {
    const hook = await newHook(stack, group, owner);
    const res = await stack.gw.post(`${base()}/${hook.id}/signing_secret`, { token: owner.token });
    expect(res.status).toBe(201);
    const secret = (res.body as { signing_secret: string }).signing_secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(hook.signing_secret);
  });
});

describe("who may call what", () => {
  const levels = [
    ["guest", 10],
    ["reporter", 20],
    ["developer", 30],
    ["maintainer", 40],
  ] as const;

  it.each(["public", "internal", "private"] as const)("on a %s group", async (visibility) => {
    const g = await newGroup(stack, owner, { visibility });
    const hook = await newHook(stack, g, owner);
    const admin = await newUser(stack, true);
    const stranger = await newUser(stack);
    const path = `/api/v4/groups/${g.id}/hooks`;
    const calls = (token?: string) => [
      stack.gw.get(path, { token }),
      stack.gw.get(`${path}/${hook.id}`, { token }),
      stack.gw.post(path, { token, json: { url: "http://example.com" } }),
      stack.gw.put(`${path}/${hook.id}`, { token, json: { name: unique("n") } }),
      stack.gw.get(`${path}/${hook.id}/events`, { token }),
    ];
    for (const res of await Promise.all(calls(undefined)))
      expect([res.status, res.body]).toEqual([401, { message: "401 Unauthorized" }]);
    const hidden = visibility === "private";
    for (const res of await Promise.all(calls(stranger.token)))
      expect([res.status, res.body]).toEqual(
        hidden ? [404, { message: "404 Group Not Found" }] : [403, { message: "403 Forbidden" }],
      );
    for (const [, level] of levels) {
      const member = await newUser(stack);
      await addMember(stack, g, member, level);
      for (const res of await Promise.all(calls(member.token)))
        expect([res.status, res.body]).toEqual([403, { message: "403 Forbidden" }]);
    }
    const secondOwner = await newUser(stack);
    await addMember(stack, g, secondOwner, 50);
    for (const token of [secondOwner.token, admin.token]) {
      const answers = await Promise.all(calls(token));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 201, 200, 200]);
    }
    // A parameter error tells a caller who may not manage hooks nothing: 403 first.
    const member = await newUser(stack);
    await addMember(stack, g, member, 40);
    const bad = await stack.gw.post(path, { token: member.token, json: {} });
    expect([bad.status, bad.body]).toEqual([403, { message: "403 Forbidden" }]);
  });

  it("lets an owner of an ancestor manage a subgroup's hooks", async () => {
    const parent = await newGroup(stack, owner);
    const child = await newGroup(stack, owner, { parent_id: parent.id });
    const heir = await newUser(stack);
    await addMember(stack, parent, heir, 50);
    const res = await stack.gw.post(`/api/v4/groups/${child.id}/hooks`, {
      token: heir.token,
      json: { url: "http://example.com" },
    });
    expect(res.status).toBe(201);
  });
});
