// gitbeaker, unchanged, drives the user state actions: Users.block, unblock, ban, unban, deactivate,
// activate, approve and reject, with GitLab's refusals, and the token of a user who is not active
// refused at once with GitLab's words.
import { Gitlab } from "@gitbeaker/rest";
import { call, createToken, createUser } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import type { Session } from "../support/session";
import { setUserStateInDatabase } from "./users-state-db";

const BLOCKED = "403 Forbidden - Your account has been blocked.";

export function usersState(session: Session) {
  describe("gitbeaker against the user state actions", () => {
    let root: Client;
    let eve: Client;
    let dora: { id: number; token: string };

    beforeAll(async () => {
      const { url, rootToken } = session.stack;
      root = new Gitlab({ host: url, token: rootToken });
      const d = await createUser(url, rootToken, session.secrets);
      dora = { id: d.id, token: (await createToken(url, rootToken, d.id, session.secrets)).token };
      const e = await createUser(url, rootToken, session.secrets);
      eve = new Gitlab({
        host: url,
        token: (await createToken(url, rootToken, e.id, session.secrets)).token,
      });
    });

    /** GET /user with dora's token: its status and message. */
    const doraSees = async () => {
      const r = await call(session.stack.url, "/api/v4/user", { token: dora.token });
      return { status: r.status, message: (r.json as { message?: string }).message };
    };

    it("Users.block and Users.unblock: the token is refused, then works", async () => {
      await root.Users.block(dora.id);
      expect(await doraSees()).toEqual({ status: 403, message: BLOCKED });
      expect((await root.Users.show(dora.id)).state).toBe("blocked");
      await root.Users.unblock(dora.id);
      expect((await doraSees()).status).toBe(200);
    });

    it("Users.ban and Users.unban, and a second ban refused with GitLab's message", async () => {
      await root.Users.ban(dora.id);
      expect((await root.Users.show(dora.id)).state).toBe("banned");
      expect(await doraSees()).toEqual({ status: 403, message: BLOCKED });
      expect(await refusal(root.Users.ban(dora.id))).toEqual({
        status: 403,
        description: "You cannot ban banned users.",
      });
      await root.Users.unban(dora.id);
      expect((await doraSees()).status).toBe(200);
    });

    it("Users.deactivate refuses a user active today; a dormant one is deactivated and activated", async () => {
      // dora used her token today: GitLab deactivates no one active in the past 90 days.
      expect(await refusal(root.Users.deactivate(dora.id))).toEqual({
        status: 403,
        description:
          "The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated",
      });
      const { url, rootToken } = session.stack;
      const made = await createUser(url, rootToken, session.secrets);
      const dormant = {
        id: made.id,
        token: (await createToken(url, rootToken, made.id, session.secrets)).token,
      };
      const dormantSees = async () => {
        const r = await call(url, "/api/v4/user", { token: dormant.token });
        return { status: r.status, message: (r.json as { message?: string }).message };
      };
      await root.Users.deactivate(dormant.id);
      expect((await root.Users.show(dormant.id)).state).toBe("deactivated");
      const refused = await dormantSees();
      expect(refused.status).toBe(403);
      expect(refused.message).toMatch(
        /^403 Forbidden - Your account has been deactivated by your administrator\./,
      );
      expect(await refusal(root.Users.unblock(dormant.id))).toEqual({
        status: 403,
        description: "403 Forbidden - Deactivated users cannot be unblocked by the API",
      });
      await root.Users.activate(dormant.id);
      expect((await dormantSees()).status).toBe(200);
    });

    it("Users.approve and Users.reject a user pending approval; others are refused", async () => {
      const { url, rootToken } = session.stack;
      const [a, b] = [
        await createUser(url, rootToken, session.secrets),
        await createUser(url, rootToken, session.secrets),
      ];
      await setUserStateInDatabase(session, [a.id, b.id], "blocked_pending_approval");
      expect(await refusal(eve.Users.approve(a.id))).toEqual({
        status: 403,
        description: "You are not allowed to approve a user",
      });
      expect(await root.Users.approve(a.id)).toEqual({ message: "Success" });
      expect((await root.Users.show(a.id)).state).toBe("active");
      expect(await refusal(root.Users.approve(a.id))).toEqual({
        status: 409,
        description: "The user you are trying to approve is not pending approval",
      });
      expect(await root.Users.reject(b.id)).toEqual({ message: "Success" });
      expect((await refusal(root.Users.show(b.id))).status).toBe(404);
      expect(await refusal(root.Users.reject(a.id))).toEqual({
        status: 409,
        description: "User does not have a pending request",
      });
    });

    it("non-administrators are refused, missing users are 404", async () => {
      expect(await refusal(eve.Users.block(dora.id))).toEqual({ status: 403, description: "403 Forbidden" });
      expect(await refusal(root.Users.block(999_999_999))).toEqual({
        status: 404,
        description: "404 User Not Found",
      });
      expect((await doraSees()).status).toBe(200);
    });
  });
}
