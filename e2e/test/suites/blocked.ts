// Blocking a user must shut every one of their tokens out on every gateway straight away, and
// unblocking must let them back in: cached answers and cached refusals both have to go.
import {
  call,
  createToken,
  createUser,
  expectCall,
  PROPAGATION_MS,
  within,
  type Reply,
} from "../support/api";
import type { Session } from "../support/session";
import type { ExtraGateway } from "../support/stack";

const BLOCKED = { message: "403 Forbidden - Your account has been blocked." };

async function refusedWithin(base: string, token: string, ms: number): Promise<Reply> {
  let last: Reply | undefined;
  await within(ms, async () => {
    last = await call(base, "/api/v4/user", { token });
    return last.status !== 200;
  });
  return last!;
}

function expectBlocked(reply: Reply) {
  expect({ status: reply.status, body: reply.json }).toEqual({ status: 403, body: BLOCKED });
  expect(reply.headers.get("content-type")).toBe("application/json");
}

export function blocked(session: Session) {
  describe("a blocked user's token is refused at once on every gateway", () => {
    let second: ExtraGateway;
    let user: { id: number };
    let token: string;

    beforeAll(async () => {
      second = await session.secondGateway();
      const { url, rootToken } = session.stack;
      user = await createUser(url, rootToken, session.secrets);
      token = (await createToken(url, rootToken, user.id, session.secrets)).token;
    }, 60_000);

    it("refuses the token with 403 right after the block, on both gateways", async () => {
      const { url, rootToken } = session.stack;
      for (const base of [url, second.url, url, second.url]) {
        await expectCall(base, "/api/v4/user", 200, { token });
      }

      const answer = await expectCall(url, `/api/v4/users/${user.id}/block`, 201, {
        token: rootToken,
        method: "POST",
      });
      expect(answer.json).toBe(true);

      // The gateway that took the block answers the very next request with the refusal.
      expectBlocked(await call(url, "/api/v4/user", { token }));
      expectBlocked(await refusedWithin(second.url, token, PROPAGATION_MS));
      expectBlocked(await call(url, "/api/v4/user", { token }));
    });

    it("lets the token in again after the unblock, on both gateways", async () => {
      const { url, rootToken } = session.stack;
      await expectCall(second.url, `/api/v4/users/${user.id}/unblock`, 201, {
        token: rootToken,
        method: "POST",
      });
      for (const base of [second.url, url]) {
        await within(
          PROPAGATION_MS,
          async () => (await call(base, "/api/v4/user", { token })).status === 200,
        );
      }
    });
  });
}
