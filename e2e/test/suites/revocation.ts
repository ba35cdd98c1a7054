// Revocation must reach every gateway process, not only the one that took the DELETE: each keeps
// authentication answers in memory, and only the token.revoked event tells the others to drop them.
import {
  call,
  createToken,
  createUser,
  expectCall,
  PROPAGATION_MS,
  within,
  type Reply,
} from "../support/api";
import { connect } from "nats";
import type { Session } from "../support/session";
import type { ExtraGateway } from "../support/stack";

const REVOKED = {
  error: "invalid_token",
  error_description: "Token was revoked. You have to re-authorize from the user.",
};

/** Authenticates twice on each gateway so that each holds the answer in its own cache. */
async function warm(token: string, ...gateways: string[]) {
  for (const base of gateways) {
    for (let i = 0; i < 2; i++) await expectCall(base, "/api/v4/user", 200, { token });
  }
}

/** Polls `base` until the token is refused (at most `ms`); returns the refusal. */
async function refusedWithin(base: string, token: string, ms: number): Promise<Reply> {
  let last: Reply | undefined;
  await within(ms, async () => {
    last = await call(base, "/api/v4/user", { token });
    return last.status !== 200;
  });
  return last!;
}

function expectRevoked(reply: Reply) {
  expect({ status: reply.status, body: reply.json }).toEqual({ status: 401, body: REVOKED });
  expect(reply.headers.get("content-type")).toBe("application/json");
  expect(reply.headers.get("www-authenticate")).toContain('error="invalid_token"');
}

export function revocation(session: Session) {
  describe("revocation is seen at once by a second gateway process", () => {
    let second: ExtraGateway;

    beforeAll(async () => {
      second = await session.secondGateway();
    }, 60_000);

    it("runs a second gateway next to the launcher's", async () => {
      const reply = await expectCall(second.url, "/api/v4/user", 200, { token: session.stack.rootToken });
      expect(reply.json).toMatchObject({ username: "root" });
    });

    it("a token revoked through gateway 1 is refused by gateway 2 as soon as the event arrives", async () => {
      const { url, rootToken } = session.stack;
      const user = await createUser(url, rootToken, session.secrets);
      const { id, token } = await createToken(url, rootToken, user.id, session.secrets);
      await warm(token, url, second.url);

      await expectCall(url, `/api/v4/personal_access_tokens/${id}`, 204, {
        token: rootToken,
        method: "DELETE",
      });

      expectRevoked(await call(url, "/api/v4/user", { token }));
      expectRevoked(await refusedWithin(second.url, token, PROPAGATION_MS));
    });

    it("a token revoking itself through gateway 2 is refused by gateway 1 as soon as the event arrives", async () => {
      const { url, rootToken } = session.stack;
      const user = await createUser(url, rootToken, session.secrets);
      const { token } = await createToken(url, rootToken, user.id, session.secrets);
      await warm(token, url, second.url);

      await expectCall(second.url, "/api/v4/personal_access_tokens/self", 204, { token, method: "DELETE" });

      expectRevoked(await call(second.url, "/api/v4/user", { token }));
      expectRevoked(await refusedWithin(url, token, PROPAGATION_MS));
    });

    it("a revoked token stays refused on both gateways (through query parameters too)", async () => {
      const { url, rootToken } = session.stack;
      const user = await createUser(url, rootToken, session.secrets);
      const { id, token } = await createToken(url, rootToken, user.id, session.secrets);
      await warm(token, url, second.url);
      await expectCall(second.url, `/api/v4/personal_access_tokens/${id}`, 204, {
        token: rootToken,
        method: "DELETE",
      });
      await refusedWithin(url, token, PROPAGATION_MS);
      for (const base of [url, second.url]) {
        expectRevoked(await call(base, "/api/v4/user", { token }));
        expectRevoked(await call(base, `/api/v4/user?private_token=${encodeURIComponent(token)}`));
      }
    });

    it("travels in the stack's own event stream, never in another deployment's", async () => {
      const { eventStream } = session.stack;
      const root = eventStream.toLowerCase();
      const nc = await connect({
        servers: (process.env.CANOPY_NATS_URL ?? "nats://127.0.0.1:4222").split(","),
      });
      try {
        const info = await (
          await nc.jetstreamManager()
        ).streams.info(eventStream, {
          subjects_filter: `${root}.auth.>`,
        });
        expect(info.config.subjects).toEqual([`${root}.>`]);
        // The tests above revoked three tokens through this stack.
        expect(info.state.subjects?.[`${root}.auth.token.revoked`]).toBeGreaterThanOrEqual(3);
      } finally {
        await nc.close();
      }
    });
  });
}
