/**
 * NUL bytes are refused before any route sees them, on the OAuth endpoints and the web forms as on
 * /api/v4 (GitLab's HandleNullBytes middleware sits in front of the whole application).
 */
import { startStack, type Stack } from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ gateways: [{ CANOPY_RATE_LIMIT_OAUTH: "1000000" }] });
}, 30_000);
afterAll(() => stack.stop());

test.each([
  ["the token endpoint", "/oauth/token", { grant_type: "password", username: "a\u0000b", password: "x" }],
  ["token revocation", "/oauth/revoke", { token: "t\u0000" }],
  ["introspection", "/oauth/introspect", { token: "t", token_type_hint: "\u0000" }],
  ["the sign-in form", "/users/sign_in", { "user[login]": "root\u0000", "user[password]": "x" }],
])("%s answers 400 to a NUL in a form field", async (_name, path, form) => {
  const res = await stack.gw.post(path, { form });
  expect(res.status).toBe(400);
  expect(res.body).toMatchObject({ error: expect.stringMatching(/ is invalid$/) });
});

test("a NUL in an /oauth query key is 400 too", async () => {
  const res = await stack.gw.get("/oauth/authorize?client_id=x&a%00=1");
  expect(res.status).toBe(400);
  expect(res.body).toEqual({ error: "parameter names must not contain NUL" });
});
