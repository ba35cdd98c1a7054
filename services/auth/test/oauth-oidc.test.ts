import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from "jose";
import type { auth, common } from "@canopy/protos";
import {
  E,
  EXTERNAL_URL,
  PASSWORD,
  ageToken,
  err,
  newApp,
  newUser,
  startOAuthHarness,
  tokensFor,
  type App,
  type OAuthHarness,
} from "./oauth-support";

// OpenID Connect: the ID token (RS256, verifiable with GetJwks, GitLab's claims, the nonce carried
// from Authorize through the code), the published keys, and UserInfo.
let h: OAuthHarness;
let a: App;
let owner: { user: auth.User; actor: common.Actor };
beforeAll(async () => {
  h = await startOAuthHarness();
  a = await newApp(h, { scopes: ["api", "read_user", "openid", "profile", "email"] });
  owner = await newUser(h, { name: "Ada Lovelace" });
});
afterAll(() => h.stop());

const jwks = async () => JSON.parse((await h.oauth.getJwks({})).jwksJson) as JSONWebKeySet;
async function verify(idToken: string, audience = a.app.uid) {
  const { payload, protectedHeader } = await jwtVerify(idToken, createLocalJWKSet(await jwks()), {
    issuer: EXTERNAL_URL,
    audience,
    algorithms: ["RS256"],
  });
  return { payload, protectedHeader };
}
const userInfo = async (token: string) => h.oauth.userInfo({ token });

describe("ID token", () => {
  it("comes with a code for openid, signed RS256, with GitLab's claims and the nonce from Authorize", async () => {
    const { user, actor } = owner;
    const authTime = new Date(Date.now() - 60_000);
    const reply = await tokensFor(h, a, actor, {
      scope: "openid profile email",
      nonce: "n-0S6_WzA2Mj",
      authTime,
    });
    expect(reply.scope).toBe("openid profile email");
    const { payload, protectedHeader } = await verify(reply.idToken);
    expect(protectedHeader).toEqual({ alg: "RS256", typ: "JWT", kid: expect.any(String) });
    expect(payload).toEqual({
      iss: EXTERNAL_URL,
      sub: String(user.id),
      aud: a.app.uid,
      exp: payload.iat! + 120,
      iat: expect.any(Number),
      auth_time: Math.floor(authTime.getTime() / 1000),
      nonce: "n-0S6_WzA2Mj",
      name: "Ada Lovelace",
      nickname: user.username,
      preferred_username: user.username,
      profile: `${EXTERNAL_URL}/${user.username}`,
      email: user.email,
      email_verified: true,
      groups_direct: [],
    });
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(5);
  });

  it("leaves out nonce when none was sent, and the email without the email scope and a public email", async () => {
    const reply = await tokensFor(h, a, owner.actor, { scope: "openid" });
    const { payload } = await verify(reply.idToken);
    expect(payload).not.toHaveProperty("nonce");
    expect(payload).not.toHaveProperty("email");
    expect(payload).not.toHaveProperty("email_verified");
  });

  it("uses the public email without the email scope", async () => {
    const { user, actor } = await newUser(h);
    const publicEmail = user.email;
    await h.auth.updateUser({ actor: h.admin, id: user.id, attributes: { publicEmail } });
    const { payload } = await verify((await tokensFor(h, a, actor, { scope: "openid" })).idToken);
    expect(payload).toMatchObject({ email: publicEmail, email_verified: true });
  });

  it("is not issued without openid", async () => {
    expect((await tokensFor(h, a, owner.actor, { scope: "api profile" })).idToken).toBe("");
  });

  it("comes again, without the nonce, with every refresh", async () => {
    const first = await tokensFor(h, a, owner.actor, { scope: "openid", nonce: "abc" });
    const refreshed = await h.oauth.token({
      grantType: "refresh_token",
      client: a.client(),
      refreshToken: first.refreshToken,
    });
    const { payload } = await verify(refreshed.idToken);
    expect(payload.sub).toBe(String(owner.user.id));
    expect(payload).not.toHaveProperty("nonce");
  });

  it("comes with the password grant through a client, carrying its nonce parameter", async () => {
    const reply = await h.oauth.token({
      grantType: "password",
      client: a.client(),
      username: owner.user.username,
      password: PASSWORD,
      scope: "openid",
      nonce: "pw-nonce",
    });
    const { payload } = await verify(reply.idToken);
    expect(payload).toMatchObject({ sub: String(owner.user.id), nonce: "pw-nonce" });
  });

  it("does not verify for another audience", async () => {
    const reply = await tokensFor(h, a, owner.actor, { scope: "openid" });
    await expect(verify(reply.idToken, "someone-else")).rejects.toThrow();
  });
});

describe("GetJwks", () => {
  it("publishes RSA public keys only, including the kid of issued ID tokens", async () => {
    const { keys } = await jwks();
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const key of keys) {
      expect(key).toEqual({
        kty: "RSA",
        kid: expect.any(String),
        n: expect.any(String),
        e: "AQAB",
        use: "sig",
        alg: "RS256",
      });
    }
    const reply = await tokensFor(h, a, owner.actor, { scope: "openid" });
    expect(keys.map((k) => k.kid)).toContain(decodeProtectedHeader(reply.idToken).kid);
  });
});

describe("UserInfo", () => {
  it("answers the claims in GitLab's key order, without empty values", async () => {
    const { user, actor } = await newUser(h, { name: "Grace Hopper", websiteUrl: "https://grace.example" });
    const reply = await tokensFor(h, a, actor, { scope: "openid email" });
    const answer = await userInfo(reply.accessToken);
    expect(answer.error).toBeUndefined();
    const claims = JSON.parse(answer.claimsJson);
    expect(Object.keys(claims)).toEqual([
      "sub",
      "name",
      "nickname",
      "preferred_username",
      "email",
      "email_verified",
      "website",
      "profile",
      "groups",
    ]);
    expect(claims).toEqual({
      sub: String(user.id),
      name: "Grace Hopper",
      nickname: user.username,
      preferred_username: user.username,
      email: user.email,
      email_verified: true,
      website: "https://grace.example",
      profile: `${EXTERNAL_URL}/${user.username}`,
      groups: [],
    });
  });

  it("drops the email, the website and other empty values", async () => {
    const reply = await tokensFor(h, a, owner.actor, { scope: "openid" });
    const claims = JSON.parse((await userInfo(reply.accessToken)).claimsJson);
    expect(Object.keys(claims)).toEqual([
      "sub",
      "name",
      "nickname",
      "preferred_username",
      "profile",
      "groups",
    ]);
    expect(Object.values(claims).filter((v) => v === "" || v === null)).toEqual([]);
  });

  it("needs the openid scope", async () => {
    const reply = await tokensFor(h, a, owner.actor, { scope: "api profile email" });
    expect(await userInfo(reply.accessToken)).toEqual({
      error: err(
        "insufficient_scope",
        "The request requires higher privileges than provided by the access token.",
      ),
      claimsJson: "",
    });
  });

  it("refuses an unknown, an expired or a revoked token as invalid_token", async () => {
    const invalid = { error: err("invalid_token", E.invalidToken), claimsJson: "" };
    expect(await userInfo("1".repeat(64))).toEqual(invalid);
    const expired = await tokensFor(h, a, owner.actor, { scope: "openid" });
    await ageToken(h, expired.accessToken, 7200);
    expect(await userInfo(expired.accessToken)).toEqual(invalid);
    const revoked = await tokensFor(h, a, owner.actor, { scope: "openid" });
    await h.oauth.revoke({ token: revoked.accessToken, client: a.client() });
    expect(await userInfo(revoked.accessToken)).toEqual(invalid);
  });
});
