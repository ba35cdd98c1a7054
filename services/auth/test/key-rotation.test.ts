/**
 * Rotating the instance key (CANOPY_SECRET_KEY, with the old one as CANOPY_SECRET_KEY_PREVIOUS):
 * tokens made under the old key keep working and are moved to the new key when used, root's token
 * stays one token, and TOTP secrets are resealed under the new key at start. Without the previous
 * key, a token nobody used during the rotation is unknown: that is why the guide says to keep it.
 */
import { randomBytes } from "node:crypto";
import { createPool, loadInstanceKeys, SealingKeys, type Pool } from "@canopy/kit";
import { throwawayDatabase, waitFor, type ThrowawayDatabase } from "@canopy/kit/testing";
import { auth } from "@canopy/protos";
import { ROOT_TOKEN_NAME } from "../src/bootstrap";
import { tokenDigest } from "../src/domain/tokens";
import { totpContext } from "../src/secrets";
import { newApp, newUser, startOAuthHarness, tokensFor, type OAuthHarness } from "./oauth-support";
import { createUser, newRootToken, startHarness, testEnv, type Harness } from "./support";

jest.setTimeout(60_000);

const keyA = randomBytes(24).toString("base64url");
const keyB = randomBytes(24).toString("base64url");
const rootToken = newRootToken();
let own: ThrowawayDatabase;
let db: Pool;
let running: Harness | undefined;

beforeAll(async () => {
  own = await throwawayDatabase("canopy_test_key_rotation_");
  db = createPool({ url: own.url, schema: "auth" });
});
afterAll(async () => {
  await running?.stop();
  await db?.end();
  await own?.drop();
});

/** Starts auth on the test's own database with these keys (one running at a time). */
async function startWith(keys: Record<string, string>): Promise<Harness> {
  const stopping = running;
  running = undefined;
  await stopping?.stop();
  running = await startHarness(testEnv(rootToken, { ...own.env, ...keys }));
  return running;
}

const digestOf = async (tokenId: number) =>
  (await db.query("SELECT token_digest FROM personal_access_tokens WHERE id = $1", [tokenId])).rows[0]
    ?.token_digest;

it("keeps tokens and TOTP secrets working across a rotation and moves them to the new key", async () => {
  const before = await startWith({ CANOPY_SECRET_KEY: keyA });
  const user = await createUser(before, {});
  const make = () =>
    before.rpc.createPersonalAccessToken({
      actor: before.admin,
      userId: user.id,
      name: "t",
      scopes: ["api"],
    });
  const used = await make();
  const unused = await make();
  const userActor = (await before.rpc.authenticate({ token: used.secret })).actor!;
  await before.rpc.prepareTwoFactor({ actor: userActor });

  // The new key alone: what the old one hashed is unknown (the rotation is what makes it work).
  const wrong = await startWith({ CANOPY_SECRET_KEY: keyB });
  expect((await wrong.rpc.authenticate({ token: used.secret })).refusal).toBe(auth.Refusal.REFUSAL_UNKNOWN);

  const rotating = await startWith({ CANOPY_SECRET_KEY: keyB, CANOPY_SECRET_KEY_PREVIOUS: keyA });
  const newKey = rotating.service.deps.tokenKey;
  expect((await rotating.rpc.authenticate({ token: used.secret })).actor?.userId).toBe(user.id);
  expect(await digestOf(used.token!.id)).toBe(tokenDigest(newKey, used.secret));
  expect(await digestOf(unused.token!.id)).not.toBe(tokenDigest(newKey, unused.secret));
  expect((await rotating.rpc.authenticate({ token: rootToken })).actor?.username).toBe("root");
  const roots = await db.query("SELECT token_digest FROM personal_access_tokens WHERE name = $1", [
    ROOT_TOKEN_NAME,
  ]);
  expect(roots.rows).toEqual([{ token_digest: tokenDigest(newKey, rootToken) }]);
  const newTotpKeys = new SealingKeys(
    await loadInstanceKeys(db, "token_hash_key", { CANOPY_SECRET_KEY: keyB }),
    "totp-secret",
  );
  await waitFor("the TOTP secret resealed under the new key", async () => {
    const { rows } = await db.query("SELECT secret_encrypted FROM user_two_factor WHERE user_id = $1", [
      user.id,
    ]);
    try {
      return newTotpKeys.open(rows[0].secret_encrypted, totpContext(user.id)).length > 0;
    } catch {
      return false;
    }
  });

  const after = await startWith({ CANOPY_SECRET_KEY: keyB });
  expect((await after.rpc.authenticate({ token: used.secret })).actor?.userId).toBe(user.id);
  expect((await after.rpc.authenticate({ token: rootToken })).actor?.username).toBe("root");
  expect((await after.rpc.authenticate({ token: unused.secret })).refusal).toBe(auth.Refusal.REFUSAL_UNKNOWN);
});

it("keeps OAuth tokens and application secrets working across a rotation", async () => {
  // Nothing else runs on the database meanwhile.
  const stopping = running;
  running = undefined;
  await stopping?.stop();
  const startOAuth = (keys: Record<string, string>) =>
    startOAuthHarness({ ...own.env, CANOPY_ROOT_TOKEN: rootToken, ...keys });
  let h: OAuthHarness = await startOAuth({ CANOPY_SECRET_KEY: keyA });
  const app = await newApp(h);
  const { actor } = await newUser(h);
  const tokens = await tokensFor(h, app, actor);
  const spare = await tokensFor(h, app, actor);
  await h.stop();
  h = await startOAuth({ CANOPY_SECRET_KEY: keyB, CANOPY_SECRET_KEY_PREVIOUS: keyA });
  try {
    expect((await h.auth.authenticate({ token: tokens.accessToken })).actor?.userId).toBe(actor.userId);
    const stored = await db.query("SELECT token_digest FROM oauth_tokens WHERE token_digest = $1", [
      tokenDigest(h.service.deps.tokenKey, tokens.accessToken),
    ]);
    expect(stored.rowCount).toBe(1);
    // The refresh token made under the old key still refreshes; the application's secret still proves it.
    const refreshed = await h.oauth.token({
      grantType: "refresh_token",
      client: app.client(),
      refreshToken: spare.refreshToken,
    });
    expect(refreshed.error).toBeUndefined();
    expect(refreshed.accessToken).toMatch(/^[0-9a-f]{64}$/);
  } finally {
    await h.stop();
  }
  h = await startOAuth({ CANOPY_SECRET_KEY: keyB });
  try {
    expect((await h.auth.authenticate({ token: tokens.accessToken })).actor?.userId).toBe(actor.userId);
    const granted = await h.oauth.token({ grantType: "client_credentials", client: app.client() });
    expect(granted.error).toBeUndefined();
  } finally {
    await h.stop();
  }
});

it("refuses a previous key that is neither `generated` nor 32 characters", async () => {
  await expect(startWith({ CANOPY_SECRET_KEY: keyB, CANOPY_SECRET_KEY_PREVIOUS: "short" })).rejects.toThrow(
    /CANOPY_SECRET_KEY_PREVIOUS/,
  );
});
