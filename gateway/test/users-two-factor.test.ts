/**
 * PATCH /api/v4/users/:id/disable_two_factor, and `two_factor_enabled` in the API following
 * enrolment (GET /user is served from the authentication cache, which must not keep the old value).
 */
import { generateSync } from "otplib";
import type { PromiseClient } from "@canopy/kit";
import { auth } from "@canopy/protos";
import {
  createAdmin,
  waitFor,
  expectError,
  FORBIDDEN,
  PASSWORD,
  signedInUser,
  startStack,
  UNAUTHORIZED,
  type ApiUser,
  type Stack,
} from "./support";
import { actorFor } from "./web-support";

let stack: Stack;
let authClient: PromiseClient<typeof auth.AuthServiceService>;
beforeAll(async () => {
  stack = await startStack();
  authClient = stack.authService.client(auth.AuthServiceService);
}, 30_000);
afterAll(async () => {
  await stack.stop();
});

/** Enrols the user as the profile page would. */
async function enrol(user: ApiUser) {
  const actor = actorFor(user);
  const { secret } = await authClient.prepareTwoFactor({ actor });
  const done = await authClient.enableTwoFactor({
    actor,
    code: generateSync({ secret }),
    password: PASSWORD,
  });
  expect(done.recoveryCodes).toHaveLength(10);
}

const disable = (id: number, token?: string) =>
  stack.gw.request("PATCH", `/api/v4/users/${id}/disable_two_factor`, { token });
const self = async (secret: string) => (await stack.gw.get("/api/v4/user", { token: secret })).body;

test("an administrator turns it off: 204, and the API says so at once", async () => {
  const { user, secret } = await signedInUser(stack);
  expect(await self(secret)).toMatchObject({ two_factor_enabled: false });
  await enrol(user);
  // Enrolment publishes user.updated, which drops the gateway's cached answer.
  await waitFor(
    "two_factor_enabled in GET /user",
    async () => ((await self(secret)) as { two_factor_enabled: boolean }).two_factor_enabled || undefined,
    5_000,
  );
  const res = await disable(user.id, stack.rootToken);
  expect(res.status).toBe(204);
  expect(res.text).toBe("");
  expect(await self(secret)).toMatchObject({ two_factor_enabled: false });
});

test("GitLab's refusals: 401, 403 for non-admins and admins' accounts, 400 when off, 404", async () => {
  const { user, secret } = await signedInUser(stack);
  await enrol(user);
  expectError(await disable(user.id), 401, UNAUTHORIZED);
  expectError(await disable(user.id, secret), 403, FORBIDDEN);
  const admin = await createAdmin(stack);
  await enrol(admin);
  expectError(await disable(admin.id, stack.rootToken), 403, {
    message:
      "403 Forbidden - Two-factor authentication for admins cannot be disabled via the API. Use the Rails console",
  });
  expect((await disable(user.id, stack.rootToken)).status).toBe(204);
  expectError(await disable(user.id, stack.rootToken), 400, {
    message: "400 Bad request - Two-factor authentication is not enabled for this user",
  });
  expectError(await disable(999_999_999, stack.rootToken), 404, { message: "404 User Not Found" });
});
