/**
 * POST /users, PUT /users/:id, DELETE /users/:id, POST /users/:id/block and /unblock: the happy
 * paths, GitLab's error bodies, and who may do what (anonymous, a user, the user themself, admin).
 */
import {
  countUsers,
  createUser,
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  ISO_TIME,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  unique,
  userRow,
  type SignedIn,
  type Stack,
} from "./support";

let stack: Stack;
let plain: SignedIn;
beforeAll(async () => {
  stack = await startStack();
  plain = await signedInUser(stack);
}, 30_000);
afterAll(() => stack.stop());

const body = (extra: Record<string, unknown> = {}) => {
  const username = unique("w_");
  return {
    username,
    email: `${username}@example.com`,
    name: `W ${username}`,
    password: "long-enough-pw",
    ...extra,
  };
};
const named = (username: string) => countUsers(stack, "username = $1", [username]);

describe("POST /api/v4/users", () => {
  test("an admin creates a user: 201 UserWithAdmin, password stored only as an argon2id hash", async () => {
    const b = body({ bio: "Hello", admin: false, projects_limit: 7, can_create_group: false, note: "n" });
    const res = await stack.gw.post("/api/v4/users", { token: stack.rootToken, json: b });
    expect(res.status).toBe(201);
    expectJsonHeaders(res);
    expect(res.body).toMatchObject({
      id: expect.any(Number),
      username: b.username,
      name: b.name,
      email: b.email,
      state: "active",
      bio: "Hello",
      is_admin: false,
      projects_limit: 7,
      can_create_group: false,
      can_create_project: true,
      note: "n",
      created_at: ISO_TIME,
      confirmed_at: ISO_TIME,
    });
    expect(res.text).not.toContain(b.password);
    const row = await userRow(stack, (res.body as { id: number }).id);
    expect(String(row!.password_hash)).toMatch(/^\$argon2id\$/);
  });

  test("form-encoded bodies work as JSON ones do", async () => {
    const b = body({ admin: "true" });
    const res = await stack.gw.post("/api/v4/users", {
      token: stack.rootToken,
      form: b as Record<string, string>,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ username: b.username, is_admin: true });
  });

  test("reset_password or force_random_password stand in for a password", async () => {
    for (const flag of ["reset_password", "force_random_password"]) {
      const { password: _p, ...b } = body({ [flag]: true });
      expect((await stack.gw.post("/api/v4/users", { token: stack.rootToken, json: b })).status).toBe(201);
    }
  });

  test("missing parameters are listed as Grape lists them", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ password: "long-enough-pw" }, "email is missing, name is missing, username is missing"],
      [
        {},
        "email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing, username is missing",
      ],
      [
        { email: "a@example.com", name: "A", username: unique("nopw_") },
        "password, reset_password, force_random_password are missing, at least one parameter must be provided",
      ],
    ];
    for (const [b, error] of cases) {
      expectError(await stack.gw.post("/api/v4/users", { token: stack.rootToken, json: b }), 400, { error });
    }
  });

  test("a taken email is 409; a taken username is 409; nothing is created", async () => {
    const existing = await createUser(stack);
    const sameEmail = body({ email: existing.email.toUpperCase() });
    expectError(await stack.gw.post("/api/v4/users", { token: stack.rootToken, json: sameEmail }), 409, {
      message: "Email has already been taken",
    });
    const sameName = body({ username: existing.username.toUpperCase() });
    expectError(await stack.gw.post("/api/v4/users", { token: stack.rootToken, json: sameName }), 409, {
      message: "Username has already been taken",
    });
    expect(await named(sameEmail.username)).toBe(0);
    expect(await countUsers(stack, "lower(email) = lower($1)", [sameName.email])).toBe(0);
  });

  test("model validation errors are keyed by attribute", async () => {
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ password: "short" }, { password: ["is too short (minimum is 8 characters)"] }],
      [{ email: "not-an-email" }, { email: ["is invalid"] }],
      [
        { username: "-bad-" + unique() + "." },
        {
          username: [
            "can contain only letters, digits, '_', '-' and '.'. Cannot start with '-' or end in '.', '.git' or '.atom'.",
          ],
        },
      ],
      [{ username: "admin" }, { username: ["admin is a reserved name"] }],
      [{ name: "  " }, { name: ["can't be blank"] }],
    ];
    for (const [extra, message] of cases) {
      const b = body(extra);
      expectError(await stack.gw.post("/api/v4/users", { token: stack.rootToken, json: b }), 400, {
        message,
      });
      expect(await countUsers(stack, "lower(email) = lower($1)", [b.email])).toBe(0);
    }
  });

  test("anonymous is 401, a non-admin 403; nothing is created", async () => {
    const b = body();
    expectError(await stack.gw.post("/api/v4/users", { json: b }), 401, UNAUTHORIZED);
    expectError(await stack.gw.post("/api/v4/users", { token: plain.secret, json: b }), 403, FORBIDDEN);
    expect(await named(b.username)).toBe(0);
  });
});

describe("PUT /api/v4/users/:id", () => {
  test("an admin updates attributes; the answer and the row agree", async () => {
    const u = await createUser(stack);
    const res = await stack.gw.put(`/api/v4/users/${u.id}`, {
      token: stack.rootToken,
      json: { name: "New Name", bio: "New bio", location: "Berlin", external: true, private_profile: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: u.id,
      name: "New Name",
      bio: "New bio",
      location: "Berlin",
      external: true,
    });
    const row = await userRow(stack, u.id);
    expect(row).toMatchObject({
      name: "New Name",
      bio: "New bio",
      private_profile: true,
      username: u.username,
    });
  });

  test("a new password replaces the hash; the old one is gone", async () => {
    const u = await createUser(stack);
    const before = (await userRow(stack, u.id))!.password_hash;
    expect(
      (
        await stack.gw.put(`/api/v4/users/${u.id}`, {
          token: stack.rootToken,
          json: { password: "another-long-pw" },
        })
      ).status,
    ).toBe(200);
    expect((await userRow(stack, u.id))!.password_hash).not.toBe(before);
  });

  test("two_factor_enabled is not an attribute: only enrolment turns it on (it would lock the user out)", async () => {
    const created = await stack.gw.post("/api/v4/users", {
      token: stack.rootToken,
      json: {
        email: `${unique("tf")}@example.com`,
        username: unique("tf"),
        name: "Two Factor",
        password: "long-enough-pw",
        two_factor_enabled: true,
      },
    });
    expect(created.status).toBe(201);
    const body = created.body as { id: number; two_factor_enabled: boolean };
    expect(body.two_factor_enabled).toBe(false);
    const id = body.id;
    const res = await stack.gw.put(`/api/v4/users/${id}`, {
      token: stack.rootToken,
      json: { two_factor_enabled: true, bio: "still changes" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ two_factor_enabled: false, bio: "still changes" });
    expect(await userRow(stack, id)).toMatchObject({ two_factor_enabled: false });
  });

  test("nobody but an admin may update, not even the user themself", async () => {
    const self = await signedInUser(stack);
    const path = `/api/v4/users/${self.user.id}`;
    expectError(await stack.gw.put(path, { json: { name: "x" } }), 401, UNAUTHORIZED);
    expectError(await stack.gw.put(path, { token: plain.secret, json: { name: "x" } }), 403, FORBIDDEN);
    expectError(await stack.gw.put(path, { token: self.secret, json: { admin: true } }), 403, FORBIDDEN);
    expect(await userRow(stack, self.user.id)).toMatchObject({ name: self.user.name, admin: false });
  });

  test("errors: 404 for a missing user, 409 for a taken email, 400 for a short password", async () => {
    const u = await createUser(stack);
    const other = await createUser(stack);
    expectError(
      await stack.gw.put("/api/v4/users/999999999", { token: stack.rootToken, json: { name: "x" } }),
      404,
      {
        message: "404 User Not Found",
      },
    );
    const path = `/api/v4/users/${u.id}`;
    expectError(await stack.gw.put(path, { token: stack.rootToken, json: { email: other.email } }), 409, {
      message: "Email has already been taken",
    });
    expectError(await stack.gw.put(path, { token: stack.rootToken, json: { password: "1234567" } }), 400, {
      message: { password: ["is too short (minimum is 8 characters)"] },
    });
    expect(await userRow(stack, u.id)).toMatchObject({ email: u.email, name: u.name });
  });
});

describe("DELETE /api/v4/users/:id", () => {
  test("an admin deletes: 204 with no body; the row and its tokens are gone", async () => {
    const victim = await signedInUser(stack);
    const res = await stack.gw.delete(`/api/v4/users/${victim.user.id}`, { token: stack.rootToken });
    expect({ status: res.status, text: res.text }).toEqual({ status: 204, text: "" });
    expect(await userRow(stack, victim.user.id)).toBeUndefined();
    const { rows } = await stack.db.query("SELECT 1 FROM auth.personal_access_tokens WHERE user_id = $1", [
      victim.user.id,
    ]);
    expect(rows).toEqual([]);
    expectError(await stack.gw.delete(`/api/v4/users/${victim.user.id}`, { token: stack.rootToken }), 404, {
      message: "404 User Not Found",
    });
  });

  test("anonymous 401, another user 403, the user themself 403; nothing is deleted", async () => {
    const self = await signedInUser(stack);
    const path = `/api/v4/users/${self.user.id}`;
    expectError(await stack.gw.delete(path), 401, UNAUTHORIZED);
    expectError(await stack.gw.delete(path, { token: plain.secret }), 403, FORBIDDEN);
    expectError(await stack.gw.delete(path, { token: self.secret }), 403, FORBIDDEN);
    expect(await userRow(stack, self.user.id)).toBeDefined();
  });
});

describe("POST /api/v4/users/:id/block and /unblock", () => {
  test("an admin blocks and unblocks: 201 true, null when already blocked, state follows", async () => {
    const u = await createUser(stack);
    for (const [action, state, text] of [
      ["block", "blocked", "true"],
      ["block", "blocked", "null"],
      ["unblock", "active", "true"],
    ] as const) {
      const res = await stack.gw.post(`/api/v4/users/${u.id}/${action}`, { token: stack.rootToken });
      expect({ status: res.status, text: res.text }).toEqual({ status: 201, text });
      expectJsonHeaders(res);
      expect(await userRow(stack, u.id)).toMatchObject({ state });
      const seen = await stack.gw.get(`/api/v4/users/${u.id}`, { token: stack.rootToken });
      expect(seen.body).toMatchObject({ state });
    }
  });

  test("anonymous 401, a user 403 (even on themself), a missing user 404", async () => {
    const self = await signedInUser(stack);
    for (const action of ["block", "unblock"]) {
      const path = `/api/v4/users/${self.user.id}/${action}`;
      expectError(await stack.gw.post(path), 401, UNAUTHORIZED);
      expectError(await stack.gw.post(path, { token: plain.secret }), 403, FORBIDDEN);
      expectError(await stack.gw.post(path, { token: self.secret }), 403, FORBIDDEN);
      expectError(await stack.gw.post(`/api/v4/users/999999999/${action}`, { token: stack.rootToken }), 404, {
        message: "404 User Not Found",
      });
    }
    expect(await userRow(stack, self.user.id)).toMatchObject({ state: "active" });
  });
});
