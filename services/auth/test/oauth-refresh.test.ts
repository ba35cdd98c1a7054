import { auth, type common, type oauth } from "@canopy/protos";
import {
  HEX64,
  INVALID_CLIENT,
  INVALID_GRANT,
  INVALID_SCOPE,
  PASSWORD,
  digestOf,
  missing,
  newApp,
  newUser,
  refusalOf,
  startOAuthHarness,
  tokenRow,
  tokensFor,
  type App,
  type OAuthHarness,
  PROVED,
} from "./oauth-support";
import { changeUserState, UserStateAction } from "./support";

// grant_type=refresh_token: rotation on every use, narrowing the scope, which client may refresh,
// the grace window that answers racing refreshes with one pair, reuse detection revoking the family,
// and sliding expiry of refresh tokens.
let h: OAuthHarness;
let user: common.Actor;
let a: App;
let other: App;
beforeAll(async () => {
  h = await startOAuthHarness();
  user = (await newUser(h)).actor;
  a = await newApp(h, { scopes: ["api", "read_user"] });
  other = await newApp(h, { scopes: ["api", "read_user"] });
});
afterAll(() => h.stop());

const refresh = (refreshToken: string, fields: Partial<oauth.TokenRequest> = {}) =>
  h.oauth.token({ grantType: "refresh_token", client: a.client(), refreshToken, ...fields });
const pairFor = () => tokensFor(h, a, user, { scope: "api read_user" });
const byRefresh = (sql: string, refreshToken: string) =>
  h.db.query(`UPDATE auth.oauth_tokens SET ${sql} WHERE refresh_digest = $1`, [digestOf(h, refreshToken)]);

describe("refresh_token: rotation", () => {
  it("answers a new pair with the same scopes and retires the old pair at once", async () => {
    const old = await pairFor();
    const fresh = await refresh(old.refreshToken);
    expect(fresh).toEqual({
      ...PROVED,
      accessToken: expect.stringMatching(HEX64),
      tokenType: "Bearer",
      expiresIn: 7200,
      refreshToken: expect.stringMatching(HEX64),
      scope: "api read_user",
      createdAt: expect.any(Number),
      idToken: "",
    });
    expect(fresh.accessToken).not.toBe(old.accessToken);
    expect(fresh.refreshToken).not.toBe(old.refreshToken);
    expect(await refusalOf(h, old.accessToken)).toBe(auth.Refusal.REFUSAL_REVOKED);
    expect(await refusalOf(h, fresh.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
    expect((await tokenRow(h, fresh.accessToken))!.family_id).toBe(
      (await tokenRow(h, old.accessToken))!.family_id,
    );
    const next = await refresh(fresh.refreshToken);
    expect(next.error).toBeUndefined();
    expect(await refusalOf(h, fresh.accessToken)).toBe(auth.Refusal.REFUSAL_REVOKED);
  });

  it("narrows the access token's scope on request; a wider scope is invalid_scope and costs nothing", async () => {
    const old = await pairFor();
    expect((await refresh(old.refreshToken, { scope: "api sudo" })).error).toEqual(INVALID_SCOPE);
    expect((await refresh(old.refreshToken, { scope: "api\tread_user" })).error).toEqual(INVALID_SCOPE);
    const narrowed = await refresh(old.refreshToken, { scope: "read_user" });
    expect(narrowed.scope).toBe("read_user");
    expect((await h.auth.authenticate({ token: narrowed.accessToken })).actor!.scopes).toEqual(["read_user"]);
    expect((await refresh(narrowed.refreshToken, { scope: "read_user api sudo" })).error).toEqual(
      INVALID_SCOPE,
    );
  });

  it("keeps the refresh token's original scope after a narrowing refresh (RFC 6749 §6)", async () => {
    const old = await pairFor();
    const narrowed = await refresh(old.refreshToken, { scope: "read_user" });
    expect(narrowed.scope).toBe("read_user");
    // The narrowed refresh token still carries the grant: asking again for all of it, or for nothing, works.
    const widened = await refresh(narrowed.refreshToken, { scope: "read_user api" });
    expect(widened.error).toBeUndefined();
    expect(widened.scope).toBe("read_user api");
    const again = await refresh((await refresh(widened.refreshToken, { scope: "api" })).refreshToken);
    expect(again.scope.split(" ").sort()).toEqual(["api", "read_user"]);
  });

  it("slides the refresh token's expiry: 30 days from each refresh", async () => {
    const old = await pairFor();
    await byRefresh("refresh_expires_at = now() + interval '1 day'", old.refreshToken);
    const fresh = await refresh(old.refreshToken);
    const { rows } = await h.db.query(
      "SELECT extract(epoch FROM refresh_expires_at - now()) AS left FROM auth.oauth_tokens WHERE refresh_digest = $1",
      [digestOf(h, fresh.refreshToken)],
    );
    expect(Number(rows[0].left) / 86_400).toBeCloseTo(30, 1);
  });
});

describe("refresh_token: refusals", () => {
  it.each([
    ["no refresh_token", () => ({ refreshToken: "" }), missing("refresh_token")],
    ["an unknown refresh token", () => ({ refreshToken: "e".repeat(64) }), INVALID_GRANT],
    [
      "the access token instead",
      (p: oauth.TokenResponse) => ({ refreshToken: p.accessToken }),
      INVALID_GRANT,
    ],
    ["another client (authenticated)", () => ({ client: other.client() }), INVALID_GRANT],
    ["a confidential client's token without credentials", () => ({ client: undefined }), INVALID_GRANT],
    [
      "a confidential client's client_id without its secret",
      () => ({ client: a.client({ secret: false }) }),
      INVALID_CLIENT,
    ],
    ["a wrong secret", () => ({ client: a.client({ secret: "gloas-nope" }) }), INVALID_CLIENT],
  ])("refuses %s, and the refresh token still works", async (_what, change, error) => {
    const pair = await pairFor();
    expect((await refresh(pair.refreshToken, change(pair))).error).toEqual(error);
    expect(await refusalOf(h, pair.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
    expect((await refresh(pair.refreshToken)).error).toBeUndefined();
  });

  it("refuses an expired refresh token", async () => {
    const pair = await pairFor();
    await byRefresh("refresh_expires_at = now() - interval '1 second'", pair.refreshToken);
    expect((await refresh(pair.refreshToken)).error).toEqual(INVALID_GRANT);
  });

  it("refuses a revoked refresh token", async () => {
    const pair = await pairFor();
    expect(await h.oauth.revoke({ token: pair.accessToken, client: a.client() })).toEqual(PROVED);
    expect((await refresh(pair.refreshToken)).error).toEqual(INVALID_GRANT);
  });

  it("refuses the refresh of a blocked user's token", async () => {
    const { user: blocked, actor } = await newUser(h);
    const pair = await tokensFor(h, a, actor);
    await changeUserState(h.service, h.admin, blocked.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    expect((await refresh(pair.refreshToken)).error).toEqual(INVALID_GRANT);
  });

  it("lets anyone holding it refresh a token issued without an application (password grant)", async () => {
    const { user: owner } = await newUser(h);
    const pair = await h.oauth.token({ grantType: "password", username: owner.username, password: PASSWORD });
    expect(pair.error).toBeUndefined();
    const fresh = await h.oauth.token({ grantType: "refresh_token", refreshToken: pair.refreshToken });
    expect(fresh.error).toBeUndefined();
    expect(fresh.scope).toBe("api");
  });
});

describe("refresh_token: racing refreshes and reuse", () => {
  it("answers ten parallel refreshes of one token with the very same new pair", async () => {
    const old = await pairFor();
    const replies = await Promise.all(Array.from({ length: 10 }, () => refresh(old.refreshToken)));
    expect(replies.map((r) => r.error)).toEqual(Array(10).fill(undefined));
    expect(new Set(replies.map((r) => `${r.accessToken}/${r.refreshToken}`)).size).toBe(1);
    expect(replies[0]!.accessToken).not.toBe(old.accessToken);
    const family = (await tokenRow(h, old.accessToken))!.family_id;
    const { rows } = await h.db.query(
      "SELECT count(*)::int AS n FROM auth.oauth_tokens WHERE family_id = $1",
      [family],
    );
    expect(rows[0].n).toBe(2);
    expect(await refusalOf(h, replies[0]!.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("answers a repeat within the grace window with the same pair, without revoking anything", async () => {
    const old = await pairFor();
    const first = await refresh(old.refreshToken);
    await byRefresh("rotated_at = now() - interval '25 seconds'", old.refreshToken);
    const again = await refresh(old.refreshToken);
    expect(again).toEqual(first);
    expect(await refusalOf(h, first.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("gives the grace-window pair only to the old token's holder: another client gets invalid_grant", async () => {
    const old = await pairFor();
    const first = await refresh(old.refreshToken);
    expect((await refresh(old.refreshToken, { client: other.client() })).error).toEqual(INVALID_GRANT);
    expect(await refusalOf(h, first.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });

  it("treats reuse after the grace window as theft: the whole family is revoked", async () => {
    const old = await pairFor();
    const second = await refresh(old.refreshToken);
    const third = await refresh(second.refreshToken);
    await byRefresh("rotated_at = now() - interval '31 seconds'", old.refreshToken);
    expect((await refresh(old.refreshToken)).error).toEqual(INVALID_GRANT);
    expect(await refusalOf(h, third.accessToken)).toBe(auth.Refusal.REFUSAL_REVOKED);
    expect((await refresh(third.refreshToken)).error).toEqual(INVALID_GRANT);
    expect((await tokenRow(h, third.accessToken))!.revoked_at).not.toBeNull();
  });

  it("leaves other families of the same user and application alone", async () => {
    const victim = await pairFor();
    const bystander = await pairFor();
    await refresh(victim.refreshToken);
    await byRefresh("rotated_at = now() - interval '31 seconds'", victim.refreshToken);
    expect((await refresh(victim.refreshToken)).error).toEqual(INVALID_GRANT);
    expect(await refusalOf(h, bystander.accessToken)).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
  });
});
