// Refresh-token rotation under a race: ten workers refreshing the same token at once all get the same
// new pair (grace window), and reuse of the retired token after the window is taken as theft, which
// revokes the whole family on every gateway. The e2e stack's grace window is short (support/stack.ts)
// so the suite can wait it out; it polls for the window's end rather than timing it.
import { PROPAGATION_MS, within } from "../support/api";
import { answer, postForm, REVOKED, withBearer } from "../support/oauth-http";
import type { OAuthWorld } from "../support/oauth-world";
import type { Session } from "../support/session";
import type { ExtraGateway } from "../support/stack";

const PARALLEL = 10;
const POLL_MS = 250;

interface Pair {
  access_token: string;
  refresh_token: string;
}

export function oauthRefreshRace(session: Session, world: OAuthWorld) {
  describe("OAuth refresh rotation: ten parallel refreshes, then reuse", () => {
    let second: ExtraGateway;
    let first: Pair;
    let rotated: Pair;

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
      for (const reply of replies) expect(reply.status).toBe(200);
      const pairs = replies.map((r) => r.json as Pair & Record<string, unknown>);
      rotated = keep(pairs[0]!);
      expect(rotated.access_token).not.toBe(first.access_token);
      expect(rotated.refresh_token).not.toBe(first.refresh_token);
      for (const pair of pairs) expect(pair).toEqual(pairs[0]);
      expect(pairs[0]).toMatchObject({ token_type: "Bearer", scope: "api", expires_in: 7200 });
    });

    it("within the grace window the old refresh token gets that same pair again", async () => {
      // Were the window over, this reuse would revoke the family and answer 400: the 200 proves it.
      const again = await refresh(first.refresh_token);
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
      // Reuse until the window ends: inside it each reuse gets the same pair and changes nothing.
      let reuse = await refresh(first.refresh_token);
      while (reuse.status === 200) {
        expect(answer(reuse)).toMatchObject({ status: 200, body: rotated });
        await new Promise((r) => setTimeout(r, POLL_MS));
        reuse = await refresh(first.refresh_token);
      }
      expect(answer(reuse)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });

      // The family's current pair is gone: its access token on every gateway (the launcher's may be
      // several replicas), its refresh token too.
      for (const base of [session.stack.url, second.url]) {
        await within(PROPAGATION_MS, async () => {
          const reply = await withBearer(base, "/api/v4/user", rotated.access_token);
          return reply.status !== 200;
        });
        expect(answer(await withBearer(base, "/api/v4/user", rotated.access_token))).toEqual({
          status: 401,
          body: REVOKED,
        });
      }
      const next = await refresh(rotated.refresh_token);
      expect(answer(next)).toMatchObject({ status: 400, body: { error: "invalid_grant" } });
    });
  });
}
