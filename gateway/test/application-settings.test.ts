/**
 * GET and PUT /application/settings (GitLab's lib/api/settings.rb): who may, which scopes, the
 * entity, GitLab's 400 bodies, and that a refused PUT changes nothing.
 */
import { takeSettingsTurn } from "../../jest/settings-turn";
import {
  expectError,
  expectJsonHeaders,
  FORBIDDEN,
  insufficientScope,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  type SignedIn,
  type Stack,
} from "./support";

// Each test creates users (argon2 hashing): on a loaded machine 5 s is too tight.
jest.setTimeout(30_000);

const PATH = "/api/v4/application/settings";
const DEFAULTS = {
  allow_local_requests_from_web_hooks_and_services: false,
  outbound_local_requests_whitelist: [],
  dns_rebinding_protection_enabled: true,
  deny_all_requests_except_allowed: false,
  deletion_adjourned_period: 7,
  default_group_visibility: "private",
  default_project_visibility: "private",
  allow_group_owners_to_manage_ldap: true,
  password_authentication_enabled_for_web: true,
  require_two_factor_authentication: false,
  two_factor_grace_period: 48,
  signup_enabled: false,
};
const LEGACY = [
  "password_authentication_enabled",
  "signin_enabled",
  "allow_local_requests_from_hooks_and_services",
];

let stack: Stack;
let plain: SignedIn;
let endTurn: () => Promise<void>;
beforeAll(async () => {
  stack = await startStack();
  plain = await signedInUser(stack);
  endTurn = await takeSettingsTurn(stack.db);
}, 60_000);
afterAll(async () => {
  await stack.gw.put(PATH, { token: stack.rootToken, json: DEFAULTS });
  await endTurn();
  await stack.stop();
});

const put = (json: unknown, token = stack.rootToken) => stack.gw.put(PATH, { token, json });
const current = async () =>
  (await stack.gw.get(PATH, { token: stack.rootToken })).body as Record<string, unknown>;

test("an administrator reads GitLab's defaults, with the legacy names beside the current ones", async () => {
  const res = await stack.gw.get(PATH, { token: stack.rootToken });
  expect(res.status).toBe(200);
  expectJsonHeaders(res);
  expect(res.body).toEqual({
    id: 1,
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    ...DEFAULTS,
    password_authentication_enabled: true,
    signin_enabled: true,
    allow_local_requests_from_hooks_and_services: false,
  });
});

test("anonymous callers get 401 and other users 403, even with bad parameters", async () => {
  expectError(await stack.gw.get(PATH), 401, UNAUTHORIZED);
  expectError(await stack.gw.put(PATH, { json: { signup_enabled: true } }), 401, UNAUTHORIZED);
  expectError(await stack.gw.get(PATH, { token: plain.secret }), 403, FORBIDDEN);
  expectError(await put({ signup_enabled: true }, plain.secret), 403, FORBIDDEN);
  expectError(await put({ default_group_visibility: "secret" }, plain.secret), 403, FORBIDDEN);
  expect((await current()).signup_enabled).toBe(false);
});

test("a read_api token reads but does not change", async () => {
  const admin = await signedInUser(stack, ["read_api"], { admin: true });
  expect((await stack.gw.get(PATH, { token: admin.secret })).status).toBe(200);
  expectError(await put({ signup_enabled: true }, admin.secret), 403, insufficientScope("api read_api"));
});

test("PUT changes what it names, ignores unknown parameters, and answers the whole entity", async () => {
  const res = await stack.gw.put(PATH, {
    token: stack.rootToken,
    form: {
      deletion_adjourned_period: "14",
      default_project_visibility: "internal",
      outbound_local_requests_whitelist: "10.0.0.0/8, hooks.internal:8080,127.0.0.1",
      deny_all_requests_except_allowed: "true",
      no_such_setting: "x",
    },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    ...DEFAULTS,
    deletion_adjourned_period: 14,
    default_project_visibility: "internal",
    outbound_local_requests_whitelist: ["10.0.0.0/8", "hooks.internal:8080", "127.0.0.1"],
    deny_all_requests_except_allowed: true,
  });
  expect(res.body).not.toHaveProperty("no_such_setting");
  expect(await current()).toEqual(res.body);
  // Legacy names are still accepted.
  const legacy = await put({ signin_enabled: false, allow_local_requests_from_hooks_and_services: true });
  expect(legacy.body).toMatchObject({
    password_authentication_enabled_for_web: false,
    signin_enabled: false,
    allow_local_requests_from_web_hooks_and_services: true,
  });
  const cleared = await put({
    outbound_local_requests_whitelist: [],
    password_authentication_enabled_for_web: true,
  });
  expect(cleared.body).toMatchObject({ outbound_local_requests_whitelist: [], signin_enabled: true });
});

test.each([
  [
    "a bad visibility",
    { default_group_visibility: "secret" },
    { error: "default_group_visibility does not have a valid value" },
  ],
  ["a bad boolean", { signup_enabled: "maybe" }, { error: "signup_enabled is invalid" }],
  ["a bad integer", { two_factor_grace_period: "soon" }, { error: "two_factor_grace_period is invalid" }],
  [
    "two-factor without a grace period",
    { require_two_factor_authentication: true },
    { error: "two_factor_grace_period is missing" },
  ],
  [
    "two names for one setting",
    { signin_enabled: true, password_authentication_enabled_for_web: false },
    { error: "password_authentication_enabled_for_web, signin_enabled are mutually exclusive" },
  ],
  [
    "a period that is not a number",
    { deletion_adjourned_period: "week" },
    { message: { deletion_adjourned_period: ["is not a number"] } },
  ],
  [
    "a period of 0",
    { deletion_adjourned_period: 0 },
    { message: { deletion_adjourned_period: ["must be greater than 0"] } },
  ],
  [
    "a period beyond 90",
    { deletion_adjourned_period: "99999999999999999999" },
    { message: { deletion_adjourned_period: ["must be less than or equal to 90"] } },
  ],
  [
    "an allowlist entry with HTML",
    { outbound_local_requests_whitelist: ["<script>x</script>"] },
    { message: { outbound_local_requests_whitelist: ["entries cannot contain HTML tags"] } },
  ],
  [
    "1001 allowlist entries",
    {
      outbound_local_requests_whitelist: Array.from({ length: 1001 }, (_, i) => `10.0.${i >> 8}.${i & 255}`),
    },
    { message: { outbound_local_requests_whitelist: ["is too long (maximum is 1000 entries)"] } },
  ],
  [
    "a NUL byte",
    { outbound_local_requests_whitelist: "a\u0000b" },
    { error: "outbound_local_requests_whitelist is invalid" },
  ],
])("%s: 400 with GitLab's body, and nothing changes", async (_name, json, body) => {
  const before = await current();
  // A valid change beside the bad one must not be saved either.
  expectError(await put({ signup_enabled: !before.signup_enabled, ...json }), 400, body);
  expect(await current()).toEqual(before);
});

test("a PUT without any known parameter is 400 and lists them", async () => {
  const res = await put({ no_such_setting: 1 });
  expect(res.status).toBe(400);
  expect((res.body as { error: string }).error).toMatch(
    /^allow_local_requests_from_web_hooks_and_services, .*, signup_enabled are missing, at least one parameter must be provided$/,
  );
});

test("the legacy names are answered with the current values", async () => {
  const s = await current();
  for (const name of LEGACY) expect(s).toHaveProperty(name);
  expect(s.signin_enabled).toBe(s.password_authentication_enabled_for_web);
});
