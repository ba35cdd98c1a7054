import { auth, common } from "@canopy/protos";
import { ROOT_TOKEN_NAME } from "../src/bootstrap";
import {
  createUser,
  waitFor,
  newRootToken,
  startHarness,
  unique,
  utcDate,
  type Harness,
  changeUserState,
  UserStateAction,
} from "./support";

// Authenticate is the gateway's question for every request: token -> Actor, or why not (GitLab's
// API guard order: unknown, expired before revoked, then the owner's state).
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

const refusalOf = async (token: string) => {
  const answer = await h.rpc.authenticate({ token });
  return answer.refusal;
};

/** A fresh user with a token made by root; not yet used. */
async function userWithToken(options: { scopes?: string[]; expiresAt?: string } = {}) {
  const user = await createUser(h);
  const created = await h.rpc.createPersonalAccessToken({
    actor: h.admin,
    userId: user.id,
    name: unique("token-"),
    scopes: options.scopes ?? ["api"],
    expiresAt: options.expiresAt ?? "",
  });
  return { user, token: created.token!, secret: created.secret };
}

const setExpiry = (tokenId: number, sqlDate: string) =>
  h.db.query(`UPDATE auth.personal_access_tokens SET expires_at = ${sqlDate} WHERE id = $1`, [tokenId]);

describe("Authenticate: accepted tokens", () => {
  it("turns the root token into root's actor: admin, scopes api and sudo, a PAT that never expires", async () => {
    const answer = await h.rpc.authenticate({ token: h.rootToken });
    expect(answer.refusal).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
    expect(answer.validUntil).toBeUndefined();
    expect(answer.actor).toEqual({
      userId: expect.any(Number),
      username: "root",
      admin: true,
      external: false,
      scopes: ["api", "sudo"],
      tokenKind: common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS,
      tokenId: expect.any(Number),
      impersonatorId: 0,
    });
    const token = await h.rpc.getPersonalAccessToken({ actor: answer.actor, id: answer.actor!.tokenId });
    expect(token).toMatchObject({
      userId: answer.actor!.userId,
      name: ROOT_TOKEN_NAME,
      expiresAt: "",
      active: true,
    });
  });

  it("describes a regular user's token: not admin, its own scopes and id", async () => {
    const { user, token, secret } = await userWithToken({ scopes: ["read_api", "read_user"] });
    const answer = await h.rpc.authenticate({ token: secret });
    expect(answer.actor).toEqual({
      userId: user.id,
      username: user.username,
      admin: false,
      external: false,
      scopes: ["read_api", "read_user"],
      tokenKind: common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS,
      tokenId: token.id,
      impersonatorId: 0,
    });
  });

  it("says whether the token's owner is external, as the user is now", async () => {
    const user = await createUser(h, { external: true });
    const created = await h.rpc.createPersonalAccessToken({
      actor: h.admin,
      userId: user.id,
      name: unique("token-"),
      scopes: ["api"],
    });
    const answer = await h.rpc.authenticate({ token: created.secret });
    expect(answer.actor).toMatchObject({ userId: user.id, admin: false, external: true });
    expect(answer.user).toMatchObject({ id: user.id, external: true });
    await h.rpc.updateUser({ actor: h.admin, id: user.id, attributes: { external: false } });
    expect((await h.rpc.authenticate({ token: created.secret })).actor).toMatchObject({ external: false });
  });

  it("says the answer holds until the start of the expiry date, UTC", async () => {
    const expiresAt = utcDate(30);
    const { secret } = await userWithToken({ expiresAt });
    const answer = await h.rpc.authenticate({ token: secret });
    expect(answer.validUntil).toEqual(new Date(`${expiresAt}T00:00:00.000Z`));
  });

  it("records when a token was last used", async () => {
    const { user, token, secret } = await userWithToken();
    const { actor } = await h.rpc.authenticate({ token: secret });
    expect(token.lastUsedAt).toBeUndefined();
    const before = Date.now();
    const lastUsedAt = await waitFor(
      "last_used_at",
      async () => (await h.rpc.getPersonalAccessToken({ actor, id: token.id })).lastUsedAt,
    );
    expect(Math.abs(lastUsedAt.getTime() - before)).toBeLessThan(10_000);
    expect(actor!.userId).toBe(user.id);
  });
});

describe("Authenticate: refusals", () => {
  it.each([
    ["an unknown token with the right prefix", newRootToken()],
    ["the empty string", ""],
    ["garbage", "not a token at all"],
    ["the bare prefix", "glpat-"],
    ["a header value instead of a token", `Bearer ${newRootToken()}`],
    ["unicode and control characters", "glpat-\u0000\u202e山田😀"],
    ["an oversized token (64 KiB)", `glpat-${"a".repeat(65_536)}`],
  ])("refuses %s as unknown", async (_, token) => {
    expect(await h.rpc.authenticate({ token })).toEqual({
      refusal: auth.Refusal.REFUSAL_UNKNOWN,
      actor: undefined,
      validUntil: undefined,
      user: undefined,
      applicationUid: "",
      tokenCreatedAt: undefined,
      impersonation: false,
    });
  });

  it("refuses a real token with something appended or a changed letter case as unknown", async () => {
    const { secret } = await userWithToken();
    expect(await refusalOf(`${secret}x`)).toBe(auth.Refusal.REFUSAL_UNKNOWN);
    expect(await refusalOf(secret.toUpperCase().replace("GLPAT-", "glpat-"))).toBe(
      auth.Refusal.REFUSAL_UNKNOWN,
    );
    expect(await refusalOf(`${secret}${"a".repeat(300)}`)).toBe(auth.Refusal.REFUSAL_UNKNOWN);
  });

  it("refuses a token that expired yesterday, and one that expires today, as expired", async () => {
    const { token, secret } = await userWithToken();
    await setExpiry(token.id, "current_date - 1");
    expect(await refusalOf(secret)).toBe(auth.Refusal.REFUSAL_EXPIRED);
    await setExpiry(token.id, "current_date");
    expect(await refusalOf(secret)).toBe(auth.Refusal.REFUSAL_EXPIRED);
    await setExpiry(token.id, "current_date + 1");
    expect(await refusalOf(secret)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("refuses a revoked token as revoked", async () => {
    const { token, secret } = await userWithToken();
    await h.rpc.revokePersonalAccessToken({ actor: h.admin, id: token.id });
    expect(await h.rpc.authenticate({ token: secret })).toEqual({
      refusal: auth.Refusal.REFUSAL_REVOKED,
      actor: undefined,
      validUntil: undefined,
      user: undefined,
      applicationUid: "",
      tokenCreatedAt: undefined,
      impersonation: false,
    });
  });

  it("checks expiry before revocation: expired and revoked is expired", async () => {
    const { token, secret } = await userWithToken();
    await h.rpc.revokePersonalAccessToken({ actor: h.admin, id: token.id });
    await setExpiry(token.id, "current_date - 10");
    expect(await refusalOf(secret)).toBe(auth.Refusal.REFUSAL_EXPIRED);
  });

  it("refuses the token of a blocked user until the user is unblocked", async () => {
    const { user, secret } = await userWithToken();
    await changeUserState(h.service, h.admin, user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    expect(await h.rpc.authenticate({ token: secret })).toEqual({
      refusal: auth.Refusal.REFUSAL_USER_BLOCKED,
      actor: undefined,
      validUntil: undefined,
      // The owner comes with the refusal: the gateway says why in GitLab's words (blocked, deactivated, ...).
      user: expect.objectContaining({ id: user.id, state: auth.UserState.USER_STATE_BLOCKED }),
      applicationUid: "",
      tokenCreatedAt: undefined,
      impersonation: false,
    });
    await changeUserState(h.service, h.admin, user.id, UserStateAction.USER_STATE_ACTION_UNBLOCK);
    expect(await refusalOf(secret)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("refuses a revoked token as revoked even when its owner is blocked", async () => {
    const { user, token, secret } = await userWithToken();
    await h.rpc.revokePersonalAccessToken({ actor: h.admin, id: token.id });
    await changeUserState(h.service, h.admin, user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    expect(await refusalOf(secret)).toBe(auth.Refusal.REFUSAL_REVOKED);
  });

  it("forgets the tokens of a deleted user", async () => {
    const { user, secret } = await userWithToken();
    await h.rpc.deleteUser({ actor: h.admin, id: user.id });
    expect(await refusalOf(secret)).toBe(auth.Refusal.REFUSAL_UNKNOWN);
  });
});
