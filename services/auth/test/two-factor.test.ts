import { status } from "@grpc/grpc-js";
import { auth, oauth } from "@canopy/protos";
import { openSecret } from "../src/commands/two-factor";
import { failure } from "./support";
import { INVALID_GRANT, newUser, PASSWORD, startOAuthHarness, type OAuthHarness } from "./oauth-support";
import { currentCode, enrolledUser, nextCode } from "./two-factor-support";
import { changeUserState, UserStateAction } from "./support";

// TOTP two-factor authentication: enrolment on the profile page, the second step of sign-in, turning
// it off; and what it means for the password grant and the account lock.
let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(() => h.stop());

const R = auth.TwoFactorRefusal;
const C = auth.SignInCodeRefusal;
const failedAttempts = async (userId: number) =>
  (await h.db.query("SELECT failed_attempts FROM users WHERE id = $1", [userId])).rows[0].failed_attempts;

describe("enrolment", () => {
  it("shows one pending secret, stored encrypted, with an otpauth URI for the QR code", async () => {
    const { user, actor } = await newUser(h);
    const first = await h.auth.prepareTwoFactor({ actor });
    expect(first.enabled).toBe(false);
    expect(first.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(first.provisioningUri);
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.searchParams.get("secret")).toBe(first.secret);
    expect(uri.searchParams.get("issuer")).toBe("canopy.test");
    expect(decodeURIComponent(first.provisioningUri)).toContain(user.email);
    // A reload shows the same secret: the one already scanned stays valid.
    expect((await h.auth.prepareTwoFactor({ actor })).secret).toBe(first.secret);
    const { rows } = await h.db.query("SELECT * FROM user_two_factor WHERE user_id = $1", [user.id]);
    expect(rows[0].secret_encrypted.includes(Buffer.from(first.secret))).toBe(false);
    expect(openSecret(h.service.deps, rows[0])).toBe(first.secret);
    expect(rows[0].enabled_at).toBeNull();
  });

  it("needs the password and a current code; then gives ten recovery codes, stored hashed", async () => {
    const { user, actor } = await newUser(h);
    const { secret } = await h.auth.prepareTwoFactor({ actor });
    const wrongPassword = await h.auth.enableTwoFactor({
      actor,
      code: currentCode(secret),
      password: "nope",
    });
    expect(wrongPassword).toEqual({ refusal: R.TWO_FACTOR_REFUSAL_WRONG_PASSWORD, recoveryCodes: [] });
    expect(await failedAttempts(user.id)).toBe(1);
    const wrongCode = await h.auth.enableTwoFactor({ actor, code: "000000", password: PASSWORD });
    expect(wrongCode.refusal).toBe(R.TWO_FACTOR_REFUSAL_INVALID_CODE);
    expect((await h.auth.getUser({ actor, id: user.id })).twoFactorEnabled).toBe(false);

    const ok = await h.auth.enableTwoFactor({ actor, code: currentCode(secret), password: PASSWORD });
    expect(ok.refusal).toBe(R.TWO_FACTOR_REFUSAL_UNSPECIFIED);
    expect(ok.recoveryCodes).toHaveLength(10);
    for (const code of ok.recoveryCodes) expect(code).toMatch(/^[0-9a-f]{16}$/);
    expect((await h.auth.getUser({ actor, id: user.id })).twoFactorEnabled).toBe(true);
    const stored = await h.db.query("SELECT code_digest FROM user_recovery_codes WHERE user_id = $1", [
      user.id,
    ]);
    expect(stored.rows).toHaveLength(10);
    for (const { code_digest } of stored.rows) expect(ok.recoveryCodes).not.toContain(code_digest);

    expect(await h.auth.prepareTwoFactor({ actor })).toEqual({
      enabled: true,
      secret: "",
      provisioningUri: "",
    });
    const again = await h.auth.enableTwoFactor({ actor, code: nextCode(secret), password: PASSWORD });
    expect(again.refusal).toBe(R.TWO_FACTOR_REFUSAL_ALREADY_ENABLED);
  });

  it("is the actor's own: no actor, no enrolment", async () => {
    expect((await failure(h.auth.prepareTwoFactor({}))).code).toBe(status.UNAUTHENTICATED);
  });
});

describe("sign-in with two-factor authentication", () => {
  it("the password alone is half: the user comes back flagged, the sign-in is not recorded", async () => {
    const { user } = await enrolledUser(h);
    await h.oauth.signIn({ login: user.username, password: "wrong" });
    const half = await h.oauth.signIn({ login: user.username, password: PASSWORD });
    expect(half.refusal).toBe(oauth.SignInRefusal.SIGN_IN_REFUSAL_UNSPECIFIED);
    expect(half.user).toMatchObject({ id: user.id, twoFactorEnabled: true, lastSignInAt: undefined });
    // The right password does not buy more guesses at the code.
    expect(await failedAttempts(user.id)).toBe(1);
  });

  it("accepts a current code once: the same code again is a replay", async () => {
    const { user, secret } = await enrolledUser(h);
    const code = nextCode(secret);
    const ok = await h.auth.verifySignInCode({ userId: user.id, code });
    expect(ok.refusal).toBe(C.SIGN_IN_CODE_REFUSAL_UNSPECIFIED);
    expect(ok.user).toMatchObject({ id: user.id, lastSignInAt: expect.any(Date) });
    expect(await h.auth.verifySignInCode({ userId: user.id, code })).toEqual({
      refusal: C.SIGN_IN_CODE_REFUSAL_INVALID,
    });
  });

  it("the code that confirmed enrolment cannot sign in", async () => {
    const { user, actor } = await newUser(h);
    const { secret } = await h.auth.prepareTwoFactor({ actor });
    const code = currentCode(secret);
    await h.auth.enableTwoFactor({ actor, code, password: PASSWORD });
    const replay = await h.auth.verifySignInCode({ userId: user.id, code });
    expect(replay.refusal).toBe(C.SIGN_IN_CODE_REFUSAL_INVALID);
  });

  it("accepts each recovery code once, typed with spaces or capitals", async () => {
    const { user, recoveryCodes } = await enrolledUser(h);
    const typed = ` ${recoveryCodes[3]!.toUpperCase().replace(/(.{4})/g, "$1 ")}`;
    expect((await h.auth.verifySignInCode({ userId: user.id, code: typed })).user?.id).toBe(user.id);
    expect((await h.auth.verifySignInCode({ userId: user.id, code: recoveryCodes[3]! })).refusal).toBe(
      C.SIGN_IN_CODE_REFUSAL_INVALID,
    );
    expect((await h.auth.verifySignInCode({ userId: user.id, code: recoveryCodes[4]! })).user?.id).toBe(
      user.id,
    );
  });

  it("counts wrong codes towards the account lock; locked, even the right code is refused", async () => {
    const { user, secret } = await enrolledUser(h);
    const answers = [];
    for (let i = 0; i < 10; i++)
      answers.push((await h.auth.verifySignInCode({ userId: user.id, code: "000000" })).refusal);
    expect(answers).toEqual([
      ...Array(9).fill(C.SIGN_IN_CODE_REFUSAL_INVALID),
      C.SIGN_IN_CODE_REFUSAL_LOCKED,
    ]);
    const right = await h.auth.verifySignInCode({ userId: user.id, code: nextCode(secret) });
    expect(right).toEqual({ refusal: C.SIGN_IN_CODE_REFUSAL_LOCKED });
    expect((await h.oauth.signIn({ login: user.username, password: PASSWORD })).refusal).toBe(
      oauth.SignInRefusal.SIGN_IN_REFUSAL_LOCKED,
    );
  });

  it("refuses a user without two-factor and a blocked user", async () => {
    const { user } = await newUser(h);
    expect((await h.auth.verifySignInCode({ userId: user.id, code: "123456" })).refusal).toBe(
      C.SIGN_IN_CODE_REFUSAL_INVALID,
    );
    const enrolled = await enrolledUser(h);
    await changeUserState(h.service, h.admin, enrolled.user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    const blocked = await h.auth.verifySignInCode({
      userId: enrolled.user.id,
      code: nextCode(enrolled.secret),
    });
    expect(blocked).toEqual({ refusal: C.SIGN_IN_CODE_REFUSAL_BLOCKED });
  });

  it("the password grant stays refused for an enrolled user", async () => {
    const { user } = await enrolledUser(h);
    const reply = await h.oauth.token({ grantType: "password", username: user.username, password: PASSWORD });
    expect(reply.error).toEqual(INVALID_GRANT);
  });
});

describe("turning it off", () => {
  it("needs the user's password; then the secret and recovery codes are gone", async () => {
    const { user, actor, recoveryCodes } = await enrolledUser(h);
    expect(await h.auth.disableTwoFactor({ actor, password: "nope" })).toEqual({
      refusal: R.TWO_FACTOR_REFUSAL_WRONG_PASSWORD,
    });
    expect((await h.auth.getUser({ actor, id: user.id })).twoFactorEnabled).toBe(true);
    expect(await h.auth.disableTwoFactor({ actor, password: PASSWORD })).toEqual({
      refusal: R.TWO_FACTOR_REFUSAL_UNSPECIFIED,
    });
    expect((await h.auth.getUser({ actor, id: user.id })).twoFactorEnabled).toBe(false);
    const left = await h.db.query(
      "SELECT (SELECT count(*) FROM user_two_factor WHERE user_id = $1) + (SELECT count(*) FROM user_recovery_codes WHERE user_id = $1) AS n",
      [user.id],
    );
    expect(Number(left.rows[0].n)).toBe(0);
    expect(
      (await h.auth.verifySignInCode({ userId: user.id, code: recoveryCodes[0]! })).user,
    ).toBeUndefined();
    expect(await h.auth.disableTwoFactor({ actor, password: PASSWORD })).toEqual({
      refusal: R.TWO_FACTOR_REFUSAL_NOT_ENABLED,
    });
    // Signing in needs only the password again, and it is recorded.
    expect(
      (await h.oauth.signIn({ login: user.username, password: PASSWORD })).user?.lastSignInAt,
    ).toBeDefined();
  });

  it("an administrator may turn another user's off (PATCH /users/:id/disable_two_factor)", async () => {
    const { user, actor } = await enrolledUser(h);
    const other = await newUser(h);
    expect((await failure(h.auth.disableTwoFactor({ actor: other.actor, userId: user.id }))).code).toBe(
      status.PERMISSION_DENIED,
    );
    expect(await h.auth.disableTwoFactor({ actor: h.admin, userId: user.id })).toEqual({
      refusal: R.TWO_FACTOR_REFUSAL_UNSPECIFIED,
    });
    expect((await h.auth.getUser({ actor, id: user.id })).twoFactorEnabled).toBe(false);
    const notEnabled = await failure(h.auth.disableTwoFactor({ actor: h.admin, userId: user.id }));
    expect(notEnabled).toMatchObject({
      code: status.FAILED_PRECONDITION,
      publicMessage: "Two-factor authentication is not enabled for this user",
    });
    expect(await failure(h.auth.disableTwoFactor({ actor: h.admin, userId: 999_999_999 }))).toMatchObject({
      code: status.NOT_FOUND,
      resource: "User",
    });
    const admin = await enrolledUser(h, { admin: true });
    expect(await failure(h.auth.disableTwoFactor({ actor: h.admin, userId: admin.user.id }))).toMatchObject({
      code: status.PERMISSION_DENIED,
      publicMessage:
        "Two-factor authentication for admins cannot be disabled via the API. Use the Rails console",
    });
  });
});
