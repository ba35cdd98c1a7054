/**
 * Impersonation tokens (GitLab lib/api/users.rb `impersonation_tokens`): administrators make, list,
 * read and revoke them; the token acts as its user, is marked in the request log, is hidden from
 * the user's own token list, stops working when revoked, when its user is blocked or when
 * impersonation is disabled.
 */
import {
  createAdmin,
  createToken,
  createUser,
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  ISO_TIME,
  REVOKED,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  waitFor,
  type ApiUser,
  type Stack,
} from "./support";

let stack: Stack;
let adminToken: string;
beforeAll(async () => {
  stack = await startStack();
  const admin = await createAdmin(stack);
  adminToken = (await createToken(stack, admin.id, ["api"])).token;
});
afterAll(() => stack.stop());

const base = (userId: number) => `/api/v4/users/${userId}/impersonation_tokens`;
const isoDay = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
const countTokens = async (userId: number) =>
  Number(
    (
      await stack.db.query("SELECT count(*) AS n FROM auth.personal_access_tokens WHERE user_id = $1", [
        userId,
      ])
    ).rows[0].n,
  );

async function impersonate(user: ApiUser, extra: Record<string, unknown> = {}) {
  const res = await stack.gw.post(base(user.id), {
    token: adminToken,
    json: { name: unique("imp-"), scopes: ["api"], expires_at: isoDay(30), ...extra },
  });
  if (res.status !== 201) throw new Error(`creating an impersonation token: ${res.status} ${res.text}`);
  return res.body as { id: number; token: string; [k: string]: unknown };
}

describe("as an administrator", () => {
  it("creates (201, with the secret once), reads, lists and revokes (204)", async () => {
    const user = await createUser(stack);
    const expires = isoDay(10);
    const created = await stack.gw.post(base(user.id), {
      token: adminToken,
      json: { name: "ci", scopes: ["api", "read_user"], expires_at: expires },
    });
    const id = (created.body as { id: number }).id;
    expect({ status: created.status, body: created.body }).toEqual({
      status: 201,
      body: {
        id,
        name: "ci",
        revoked: false,
        created_at: ISO_TIME,
        description: null,
        scopes: ["api", "read_user"],
        user_id: user.id,
        last_used_at: null,
        active: true,
        expires_at: expires,
        impersonation: true,
        token: expect.stringMatching(/^glpat-[A-Za-z0-9_-]{32}$/),
      },
    });
    expectJsonHeaders(created);
    const { token: _secret, ...shown } = created.body as Record<string, unknown>;
    const read = await stack.gw.get(`${base(user.id)}/${id}`, { token: adminToken });
    expect({ status: read.status, body: read.body }).toEqual({ status: 200, body: shown });
    const listed = await stack.gw.get(base(user.id), { token: adminToken });
    expect({ status: listed.status, body: listed.body }).toEqual({ status: 200, body: [shown] });
    expect(listed.headers.get("x-total")).toBe("1");

    const revoked = await stack.gw.delete(`${base(user.id)}/${id}`, { token: adminToken });
    expect({ status: revoked.status, text: revoked.text }).toEqual({ status: 204, text: "" });
    const after = await stack.gw.get(`${base(user.id)}/${id}`, { token: adminToken });
    expect(after.body).toEqual({ ...shown, revoked: true, active: false });
    // Revoking again changes nothing and is still a 204, as GitLab's revoke! is.
    expect((await stack.gw.delete(`${base(user.id)}/${id}`, { token: adminToken })).status).toBe(204);
  });

  it("filters the list by state (all, active, inactive) and lists only impersonation tokens", async () => {
    const user = await createUser(stack);
    await createToken(stack, user.id); // a personal access token: not listed here
    const live = await impersonate(user);
    const gone = await impersonate(user);
    await stack.gw.delete(`${base(user.id)}/${gone.id}`, { token: adminToken });
    const ids = async (query: string) =>
      ((await stack.gw.get(`${base(user.id)}${query}`, { token: adminToken })).body as { id: number }[]).map(
        (t) => t.id,
      );
    expect(await ids("")).toEqual([live.id, gone.id]);
    expect(await ids("?state=all")).toEqual([live.id, gone.id]);
    expect(await ids("?state=active")).toEqual([live.id]);
    expect(await ids("?state=inactive")).toEqual([gone.id]);
    expect(await ids("?state=inactive&per_page=1&page=2")).toEqual([]);
    expectError(await stack.gw.get(`${base(user.id)}?state=revoked`, { token: adminToken }), 400, {
      error: "state does not have a valid value",
    });
  });

  it("answers 404 for a missing user, and 404 Impersonation Token Not Found for another's or a plain token", async () => {
    const [user, other] = [await createUser(stack), await createUser(stack)];
    const own = await impersonate(other);
    const plain = await createToken(stack, user.id);
    expectError(await stack.gw.get(base(999_999_999), { token: adminToken }), 404, {
      message: "404 User Not Found",
    });
    expectError(
      await stack.gw.post(base(999_999_999), { token: adminToken, json: { name: "x", scopes: ["api"] } }),
      404,
      { message: "404 User Not Found" },
    );
    const notFound = { message: "404 Impersonation Token Not Found" };
    for (const id of [own.id, plain.id, 999_999_999]) {
      expectError(await stack.gw.get(`${base(user.id)}/${id}`, { token: adminToken }), 404, notFound);
      expectError(await stack.gw.delete(`${base(user.id)}/${id}`, { token: adminToken }), 404, notFound);
    }
    // Nothing was revoked by the refused deletes.
    expect((await stack.gw.get(`${base(other.id)}/${own.id}`, { token: adminToken })).body).toMatchObject({
      revoked: false,
    });
  });

  it("refuses bad input with GitLab's 400 bodies and makes no token", async () => {
    const user = await createUser(stack);
    const post = (json: unknown) => stack.gw.post(base(user.id), { token: adminToken, json });
    expectError(await post({ scopes: ["api"], expires_at: isoDay(1) }), 400, { error: "name is missing" });
    expectError(await post({ name: "x", expires_at: isoDay(1) }), 400, {
      message: { scopes: ["can't be blank"] },
    });
    expectError(await post({ name: "x", scopes: ["api"] }), 400, {
      message: { expires_at: ["can't be blank"] },
    });
    expectError(await post({ name: "", scopes: [] }), 400, {
      message: { name: ["can't be blank"], scopes: ["can't be blank"], expires_at: ["can't be blank"] },
    });
    expectError(await post({ name: "x", scopes: ["root"], expires_at: isoDay(1) }), 400, {
      message: { scopes: ["can only contain available scopes"] },
    });
    // An administrator's scopes are for administrators' tokens only.
    expectError(await post({ name: "x", scopes: ["sudo"], expires_at: isoDay(1) }), 400, {
      message: { scopes: ["can only contain available scopes"] },
    });
    expectError(await post({ name: "x", scopes: ["api"], expires_at: isoDay(400) }), 400, {
      message: { expires_at: [`must be before ${isoDay(365)}`] },
    });
    for (const expires_at of ["2027-02-30", "tomorrow", "2027-1-1"])
      expectError(await post({ name: "x", scopes: ["api"], expires_at }), 400, {
        error: "expires_at is invalid",
      });
    expect((await post({ name: "x".repeat(256), scopes: ["api"], expires_at: isoDay(1) })).status).toBe(400);
    expect((await post({ name: { $ne: 1 }, scopes: ["api"], expires_at: isoDay(1) })).status).toBe(400);
    expect((await post({ name: "a\u0000b", scopes: ["api"], expires_at: isoDay(1) })).status).toBe(400);
    expectError(await stack.gw.get("/api/v4/users/abc/impersonation_tokens", { token: adminToken }), 400, {
      error: "user_id is invalid",
    });
    expectError(await stack.gw.get(`${base(user.id)}/abc`, { token: adminToken }), 400, {
      error: "impersonation_token_id is invalid",
    });
    expect(await countTokens(user.id)).toBe(0);
    // Unicode names are kept as given.
    const named = await impersonate(user, { name: "déploiement 🚀 '; DROP TABLE users; --" });
    expect(named.name).toBe("déploiement 🚀 '; DROP TABLE users; --");
  });

  it("accepts the comma form of scopes and a form body", async () => {
    const user = await createUser(stack, { admin: true });
    const res = await stack.gw.post(base(user.id), {
      token: adminToken,
      form: { name: "form", scopes: "api,sudo", expires_at: isoDay(2) },
    });
    expect(res.status).toBe(201);
    expect((res.body as { scopes: string[] }).scopes).toEqual(["api", "sudo"]);
  });
});

describe("who may", () => {
  it("anonymous 401, a non-admin (even for themselves) 403 before any parameter is looked at", async () => {
    const user = await signedInUser(stack);
    const paths = [base(user.user.id), `${base(user.user.id)}/1`, "/api/v4/users/abc/impersonation_tokens"];
    for (const path of paths) {
      expectError(await stack.gw.get(path), 401, UNAUTHORIZED);
      expectError(await stack.gw.get(path, { token: user.secret }), 403, FORBIDDEN);
    }
    expectError(await stack.gw.delete(`${base(user.user.id)}/1`), 401, UNAUTHORIZED);
    expectError(await stack.gw.delete(`${base(user.user.id)}/1`, { token: user.secret }), 403, FORBIDDEN);
    expectError(
      await stack.gw.post(base(user.user.id), { json: { name: "x", scopes: ["api"] } }),
      401,
      UNAUTHORIZED,
    );
    expectError(
      await stack.gw.post(base(user.user.id), { token: user.secret, json: { name: "x", scopes: ["api"] } }),
      403,
      FORBIDDEN,
    );
    expect(await countTokens(user.user.id)).toBe(1);
  });

  it("an administrator's read_user token may read but not create", async () => {
    const admin = await createAdmin(stack);
    const readOnly = (await createToken(stack, admin.id, ["read_user"])).token;
    const user = await createUser(stack);
    expect((await stack.gw.get(base(user.id), { token: readOnly })).status).toBe(200);
    const refused = await stack.gw.post(base(user.id), {
      token: readOnly,
      json: { name: "x", scopes: ["api"], expires_at: isoDay(1) },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: "insufficient_scope" });
  });
});

describe("the token", () => {
  it("acts as its user, is marked in the request log, and stops working once revoked", async () => {
    const user = await createUser(stack);
    const made = await impersonate(user, { scopes: ["api"] });
    const me = await stack.gw.get("/api/v4/user", { token: made.token });
    expect(me.status).toBe(200);
    expect((me.body as ApiUser).username).toBe(user.username);
    const self = await stack.gw.get("/api/v4/personal_access_tokens/self", { token: made.token });
    // GitLab's PersonalAccessToken entity: the same token, without the impersonation field.
    expect(self.body).toMatchObject({ id: made.id, user_id: user.id, active: true });
    expect(self.body).not.toHaveProperty("impersonation");
    await waitFor("the request's log line", () =>
      stack.logs
        .records()
        .some(
          (l) =>
            l.msg === "request" &&
            l.path === "/api/v4/personal_access_tokens/self" &&
            l.impersonation === true,
        ),
    );
    expect(stack.logs.text()).not.toContain(made.token);

    await stack.gw.delete(`${base(user.id)}/${made.id}`, { token: adminToken });
    expectError(await stack.gw.get("/api/v4/user", { token: made.token }), 401, REVOKED);
  });

  it("is not in its user's own token list, and its user may neither revoke it nor revoke it as self", async () => {
    const user = await signedInUser(stack);
    const made = await impersonate(user.user);
    const own = await stack.gw.get("/api/v4/personal_access_tokens", { token: user.secret });
    expect((own.body as { id: number }[]).map((t) => t.id)).toEqual([user.token.id]);
    const all = await stack.gw.get(`/api/v4/personal_access_tokens?user_id=${user.user.id}`, {
      token: adminToken,
    });
    expect((all.body as { id: number }[]).map((t) => t.id)).toEqual([user.token.id, made.id]);
    expectError(
      await stack.gw.delete(`/api/v4/personal_access_tokens/${made.id}`, { token: user.secret }),
      400,
      {
        message: "400 Bad request",
      },
    );
    expectError(await stack.gw.delete("/api/v4/personal_access_tokens/self", { token: made.token }), 400, {
      message: "400 Bad request",
    });
    expect((await stack.gw.get("/api/v4/user", { token: made.token })).status).toBe(200);
  });

  it("stops working when its user is blocked, as the user's own tokens do", async () => {
    const user = await createUser(stack);
    const made = await impersonate(user);
    expect((await stack.gw.get("/api/v4/user", { token: made.token })).status).toBe(200);
    expect((await stack.gw.post(`/api/v4/users/${user.id}/block`, { token: adminToken })).status).toBe(201);
    expectError(await stack.gw.get("/api/v4/user", { token: made.token }), 403, {
      message: "403 Forbidden - Your account has been blocked.",
    });
  });

  it("is refused with GitLab's invalid_token answer while impersonation is disabled", async () => {
    const user = await createUser(stack);
    const made = await impersonate(user);
    const config = stack.authService.config as { CANOPY_IMPERSONATION_ENABLED: boolean };
    config.CANOPY_IMPERSONATION_ENABLED = false;
    try {
      const res = await stack.gw.get("/api/v4/user", { token: made.token });
      expectError(res, 401, {
        error: "invalid_token",
        error_description: "Token is an impersonation token but impersonation was disabled.",
      });
      expect(res.headers.get("www-authenticate")).toContain("impersonation was disabled");
      // The user's own token is not an impersonation token and keeps working.
      const own = await createToken(stack, user.id);
      expect((await stack.gw.get("/api/v4/user", { token: own.token })).status).toBe(200);
    } finally {
      config.CANOPY_IMPERSONATION_ENABLED = true;
    }
  });
});
