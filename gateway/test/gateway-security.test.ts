/**
 * Regression tests for defects found by a security test of the running stack (issue 6, item 9):
 * `self` with an OAuth token, repeated `sudo`, and bad input that used to be answered with 500.
 */
import { gzipSync } from "node:zlib";
import {
  createUser,
  expectError,
  PASSWORD,
  signedInUser,
  startStack,
  userRow,
  type Reply,
  type SignedIn,
  type Stack,
} from "./support";

// Each test creates users (argon2 hashing): on a shared, busy machine that takes seconds.
jest.setTimeout(20_000);

let stack: Stack;
let admin: SignedIn;
beforeAll(async () => {
  stack = await startStack({ gateways: [{ CANOPY_RATE_LIMIT_OAUTH: "1000000" }] });
  admin = await signedInUser(stack, ["api", "sudo"], { admin: true });
}, 30_000);
afterAll(() => stack.stop());

const UNAUTHORIZED = { message: "401 Unauthorized" };
const SUDO_INVALID = { error: "sudo is invalid" };

describe("/personal_access_tokens/self needs a personal access token", () => {
  test("an OAuth access token gets 401 on GET and DELETE, and no personal token is touched", async () => {
    const owner = await signedInUser(stack);
    const grant = await stack.gw.post("/oauth/token", {
      form: { grant_type: "password", username: owner.user.username, password: PASSWORD, scope: "api" },
    });
    expect(grant.status).toBe(200);
    const bearer = {
      headers: { Authorization: `Bearer ${(grant.body as { access_token: string }).access_token}` },
    };
    // The OAuth token itself works on the API...
    expect((await stack.gw.get("/api/v4/user", bearer)).status).toBe(200);
    // ...but it is not a personal access token: `self` has nothing to describe or revoke.
    expectError(await stack.gw.get("/api/v4/personal_access_tokens/self", bearer), 401, UNAUTHORIZED);
    expectError(await stack.gw.delete("/api/v4/personal_access_tokens/self", bearer), 401, UNAUTHORIZED);
    // The owner's personal access token, and the OAuth token, both still work.
    expect((await stack.gw.get("/api/v4/personal_access_tokens/self", { token: owner.secret })).status).toBe(
      200,
    );
    expect((await stack.gw.get("/api/v4/user", bearer)).status).toBe(200);
  });
});

describe("sudo given more than once is refused, never ignored", () => {
  let target: { id: number; username: string };
  beforeAll(async () => {
    target = await createUser(stack);
  });

  test.each<[string, () => Promise<Reply>]>([
    [
      "twice in the query",
      () => stack.gw.get(`/api/v4/user?sudo=${target.username}&sudo=root`, { token: admin.secret }),
    ],
    [
      "in the query and in the body",
      () =>
        stack.gw.put(`/api/v4/users/${target.id}?sudo=${target.username}`, {
          token: admin.secret,
          form: { sudo: "root", bio: "sudo twice" },
        }),
    ],
    [
      "in the header and as a parameter",
      () =>
        stack.gw.get(`/api/v4/user?sudo=${target.username}`, {
          token: admin.secret,
          headers: { Sudo: "root" },
        }),
    ],
    [
      "as a JSON array",
      () =>
        stack.gw.put(`/api/v4/users/${target.id}`, {
          token: admin.secret,
          json: { sudo: [target.username], bio: "x" },
        }),
    ],
  ])("%s: 400 sudo is invalid", async (_how, send) => {
    expectError(await send(), 400, SUDO_INVALID);
    expect((await userRow(stack, target.id))!.bio).not.toBe("sudo twice");
  });

  test("a Sudo id beyond any user id is 400, not a 500", async () => {
    for (const sudo of ["99999999999999999999999999", "9223372036854775808"]) {
      expectError(
        await stack.gw.get("/api/v4/user", { token: admin.secret, headers: { Sudo: sudo } }),
        400,
        SUDO_INVALID,
      );
    }
  });

  test("sudo once still works", async () => {
    const res = await stack.gw.get(`/api/v4/user?sudo=${target.username}`, { token: admin.secret });
    expect(res.body).toMatchObject({ id: target.id });
  });
});

describe("values beyond 32 bits are 400", () => {
  test.each([
    ["/api/v4/users?page=2147483648", "page is invalid"],
    ["/api/v4/users?per_page=99999999999", "per_page is invalid"],
    ["/api/v4/personal_access_tokens?page=-2147483649", "page is invalid"],
  ])("%s", async (path, error) => {
    expectError(await stack.gw.get(path, { token: admin.secret }), 400, { error });
  });

  test("projects_limit beyond int32 changes nothing", async () => {
    const u = await createUser(stack);
    const res = await stack.gw.put(`/api/v4/users/${u.id}`, {
      token: admin.secret,
      json: { projects_limit: 2 ** 31, bio: "too big" },
    });
    expectError(res, 400, { error: "projects_limit is invalid" });
    expect((await userRow(stack, u.id))!.bio).not.toBe("too big");
  });
});

describe("encoded bodies are 415", () => {
  test.each(["gzip", "br", "deflate"])("Content-Encoding: %s on a form body", async (encoding) => {
    const u = await createUser(stack);
    const res = await stack.gw.put(`/api/v4/users/${u.id}`, {
      token: admin.secret,
      raw: encoding === "gzip" ? gzipSync("bio=encoded") : Buffer.from("not really compressed"),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Encoding": encoding },
    });
    expectError(res, 415, { error: "415 Unsupported Media Type" });
    expect((await userRow(stack, u.id))!.bio).not.toBe("encoded");
  });
});

describe("NUL bytes anywhere are 400", () => {
  test.each([
    ["an undeclared query field", "/api/v4/users?unknown=a%00b", { error: "unknown is invalid" }],
    ["an array field", "/api/v4/users?ids[]=1&ids[]=%00", { error: "ids is invalid" }],
    ["a query key", "/api/v4/users?a%00b=1", { error: "parameter names must not contain NUL" }],
    ["a token parameter", "/api/v4/users?private_token=%00", { error: "private_token is invalid" }],
  ])("in %s", async (_where, path, body) => {
    expectError(await stack.gw.get(path), 400, body);
  });

  test.each<[string, unknown]>([
    ["a nested JSON value", { bio: "ok", extra: { deep: ["x", "a\u0000"] } }],
    ["a nested JSON key", { bio: "ok", extra: { "k\u0000": 1 } }],
  ])("in %s, and nothing changes", async (_where, json) => {
    const u = await createUser(stack);
    const res = await stack.gw.put(`/api/v4/users/${u.id}`, { token: admin.secret, json });
    expectError(res, 400, { error: "extra is invalid" });
    expect((await userRow(stack, u.id))!.bio).not.toBe("ok");
  });
});
