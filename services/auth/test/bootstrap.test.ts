import { createPool, type Pool } from "@canopy/kit";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { auth } from "@canopy/protos";
import { ROOT_TOKEN_NAME } from "../src/bootstrap";
import { tokenDigest } from "../src/domain/tokens";
import { authRpc, newRootToken, startService, testEnv, type Service } from "./support";

// Every replica runs migrations and bootstrap on start. Started together, they must still leave one
// root, one root token per CANOPY_ROOT_TOKEN value and one UserCreated event.
jest.setTimeout(30_000);

const started: Service[] = [];
const pools: Pool[] = [];
/** Stops every service started so far and closes every pool opened so far. */
const stopAll = async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
  await Promise.all(pools.splice(0).map((p) => p.end()));
};
afterAll(stopAll);

/** Starts two services at once with the same configuration. */
async function startTwo(env: NodeJS.ProcessEnv) {
  const pair = await Promise.all([startService(env), startService(env)]);
  started.push(...pair);
  return pair;
}

async function rootState(db: Pool, rootToken: string, tokenKey: Buffer) {
  const digest = tokenDigest(tokenKey, rootToken);
  const { rows } = await db.query<{
    roots: number;
    tokens: number;
    expires_at: string | null;
    digests: string[];
  }>(
    `SELECT (SELECT count(*) FROM users WHERE lower(username) = 'root') AS roots,
            (SELECT count(*) FROM personal_access_tokens WHERE token_digest = $1) AS tokens,
            (SELECT expires_at FROM personal_access_tokens WHERE token_digest = $1) AS expires_at,
            (SELECT array_agg(token_digest) FROM personal_access_tokens WHERE token_digest IN ($1, $2)) AS digests`,
    [digest, rootToken],
  );
  return rows[0]!;
}

describe("bootstrap against the shared database", () => {
  it("leaves one root and one row for the root token when two services start together", async () => {
    const rootToken = newRootToken();
    const [a, b] = await startTwo(testEnv(rootToken));
    const state = await rootState(a.pool, rootToken, a.deps.tokenKey);
    expect(state).toEqual({
      roots: 1,
      tokens: 1,
      expires_at: null,
      // Only the keyed digest is stored, never the token itself.
      digests: [tokenDigest(a.deps.tokenKey, rootToken)],
    });
    expect(state.digests[0]).not.toBe(rootToken);
    expect(b.deps.tokenKey.equals(a.deps.tokenKey)).toBe(true);
  });

  it("serves the same root token, with no expiry, from both replicas", async () => {
    const rootToken = newRootToken();
    const services = await startTwo(testEnv(rootToken));
    const answers = await Promise.all(
      services.map(async (s) => {
        const rpc = authRpc(s);
        const answer = await rpc.authenticate({ token: rootToken });
        const token = await rpc.getPersonalAccessToken({ actor: answer.actor, id: answer.actor?.tokenId });
        return { answer, token };
      }),
    );
    const [first, second] = answers;
    expect(first!.answer.refusal).toBe(auth.Refusal.REFUSAL_UNSPECIFIED);
    expect(first!.answer.validUntil).toBeUndefined();
    expect(first!.answer.actor).toMatchObject({ username: "root", admin: true, scopes: ["api", "sudo"] });
    expect(second!.answer.actor).toEqual(first!.answer.actor);
    expect(first!.token).toMatchObject({
      name: ROOT_TOKEN_NAME,
      expiresAt: "",
      revoked: false,
      active: true,
    });
  });
});

describe("bootstrap of an empty database", () => {
  let own: ThrowawayDatabase;

  beforeAll(async () => {
    own = await throwawayDatabase("canopy_test_bootstrap_");
  });
  afterAll(async () => {
    await stopAll();
    await own.drop();
  });

  it("migrates once and creates root, its token and one UserCreated event when two services race", async () => {
    const rootToken = newRootToken();
    const [a, b] = await startTwo(testEnv(rootToken, own.env));
    expect(b.deps.tokenKey.equals(a.deps.tokenKey)).toBe(true);
    const db = createPool({ url: own.url, schema: "auth" });
    pools.push(db);
    const state = await rootState(db, rootToken, a.deps.tokenKey);
    expect({ roots: state.roots, tokens: state.tokens, expires_at: state.expires_at }).toEqual({
      roots: 1,
      tokens: 1,
      expires_at: null,
    });
    const { rows } = await db.query<{ subject: string; n: number }>(
      "SELECT subject, count(*) AS n FROM outbox GROUP BY subject",
    );
    expect(rows).toEqual([{ subject: "canopy.auth.user.created", n: 1 }]);
    const root = await db.query<{ admin: boolean; state: string; has_password: boolean; confirmed: boolean }>(
      `SELECT admin, state, password_hash LIKE '$argon2id$%' AS has_password, confirmed_at IS NOT NULL AS confirmed
         FROM users WHERE username = 'root'`,
    );
    expect(root.rows).toEqual([{ admin: true, state: "active", has_password: true, confirmed: true }]);
  });
});
