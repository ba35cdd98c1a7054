// Refresh-token rotation under a race: ten workers refreshing the same token at once all get the same
// new pair (grace window), and reuse of the retired token after the window is taken as theft, which
// revokes the whole family on every gateway. The e2e stack's grace window is 2 s (support/stack.ts).
import { call, within } from "../support/api";
import { answer, postForm, REVOKED, withBearer } from "../support/oauth-http";
import type { OAuthWorld } from "../support/oauth-world";
import type { Session } from "../support/session";
import type { ExtraGateway } from "../support/stack";

const GRACE_MS = 2_000;
const PARALLEL = 10;

interface Pair {
  access_token: string;
  refresh_token: string;
}

export function oauthRefreshRace(session: Session, world: OAuthWorld) {
  describe("OAuth refresh rotation: ten parallel refreshes, then reuse", () => {
    let second: ExtraGateway;
    let first: Pair;
    let rotated: Pair;
    let batchDone: number;

    /** A refresh as a confidential client sends it (client_secret_post). */
    const refresh = (refreshToken: string) => {
      const app = world.app("confidential");
      return postForm(session.stack.url, "/oauth/token", {
        grant_type: "refresh_token",
        refresh_token: refreshToken,
        client_id: app.clientId,
        client_secret: app.secret,
      });
    };
    const keep = (pair: Pair) => {
      session.secrets.add(pair.access_token);
      session.secrets.add(pair.refresh_token);
      return pair;
    };

    beforeAll(async () => {
      second = await session.secondGateway();
      const user = await world.user();
      const granted = await postForm(
        session.stack.url,
        "/oauth/token",
        { grant_type: "password", username: user.username, password: user.password, scope: "api" },
        world.app("confidential"),
      );
      expect(granted.status).toBe(200);
      first = keep(granted.json as Pair);
    }, 60_000);

    it(`${PARALLEL} parallel refreshes of one token all get the same new pair`, async () => {
      const replies = await Promise.all(Array.from({ length: PARALLEL }, () => refresh(first.refresh_token)));
      batchDone = Date.now();
      for (const reply of replies) expect(reply.status).toBe(200);
      const pairs = replies.map((r) => r.json as Pair & Record<string, unknown>);
      rotated = keep(pairs[0]!);
      expect(rotated.access_token).not.toBe(first.access_token);
      expect(rotated.refresh_token).not.toBe(first.refresh_token);
      for (const pair of pairs) expect(pair).toEqual(pairs[0]);
      expect(pairs[0]).toMatchObject({ token_type: "Bearer", scope: "api", expires_in: 7200 });
    });

    it("within the grace window the old refresh token gets that same pair again", async () => {
      const again = await refresh(first.refresh_token);
      expect(Date.now() - batchDone).toBeLessThan(GRACE_MS);
      expect(answer(again)).toMatchObject({ status: 200, body: rotated });
      for (const base of [session.stack.url, second.url]) {
        expect((await withBearer(base, "/api/v4/user", rotated.access_token)).status).toBe(200);
        expect(answer(await withBearer(base, "/api/v4/user", first.access_token))).toEqual({
          status: 401,
          body: REVOKED,
        });
      }
    });

    it("after the window, reuse of the old refresh token fails and revokes the family", async () => {
      const wait = batchDone + GRACE_MS + 500 - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));

      const reuse = await refresh(first.refresh_token);
      expect(answer(reuse)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

      // The family's current pair is gone: its access token on both gateways, its refresh token too.
      expect(answer(await withBearer(session.stack.url, "/api/v4/user", rotated.access_token))).toEqual({
        status: 401,
        body: REVOKED,
      });
      await within(1_000, async () => {
        const reply = await call(second.url, "/api/v4/user", {
          headers: { Authorization: `Bearer ${rotated.access_token}` },
        });
        return reply.status === 401;
      });
      const next = await refresh(rotated.refresh_token);
      expect(answer(next)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    });
  });
}
