// gitbeaker, unchanged, drives impersonation tokens (UserImpersonationTokens), user statuses
// (Users.showStatus / editStatus) and user activities (Users.allActivities).
import { Gitlab } from "@gitbeaker/rest";
import { createToken, createUser, PROPAGATION_MS, within } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import type { Session } from "../support/session";

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export function usersTokens(session: Session) {
  describe("gitbeaker: impersonation tokens, statuses, activities", () => {
    let root: Client;
    let user: { id: number; username: string };
    let own: Client;

    beforeAll(async () => {
      const { url, rootToken } = session.stack;
      root = new Gitlab({ host: url, token: rootToken });
      user = await createUser(url, rootToken, session.secrets);
      own = new Gitlab({
        host: url,
        token: (await createToken(url, rootToken, user.id, session.secrets)).token,
      });
    });

    it("UserImpersonationTokens: create acts as the user, all/show read, remove revokes", async () => {
      const made = await root.UserImpersonationTokens.create(user.id, "gb-imp", ["api"], {
        expiresAt: inDays(3),
      });
      session.secrets.add(made.token as string);
      expect(made).toMatchObject({ name: "gb-imp", impersonation: true, active: true, user_id: user.id });
      const acting = new Gitlab({ host: session.stack.url, token: made.token as string });
      expect(await acting.Users.showCurrentUser()).toMatchObject({ id: user.id, username: user.username });
      expect(await root.UserImpersonationTokens.show(user.id, made.id as number)).toMatchObject({
        id: made.id,
        impersonation: true,
      });
      const active = await root.UserImpersonationTokens.all(user.id, { state: "active" });
      expect(active.map((t) => t.id)).toEqual([made.id]);
      await root.UserImpersonationTokens.remove(user.id, made.id as number);
      expect(await refusal(acting.Users.showCurrentUser())).toMatchObject({ status: 401 });
      expect(
        (await root.UserImpersonationTokens.all(user.id, { state: "inactive" })).map((t) => t.id),
      ).toEqual([made.id]);
      expect(await refusal(own.UserImpersonationTokens.all(user.id))).toEqual({
        status: 403,
        description: "403 Forbidden",
      });
    });

    it("Users.editStatus sets the caller's status; Users.showStatus reads it by id or username", async () => {
      const set = await own.Users.editStatus({
        emoji: "rocket",
        message: "shipping",
        clearStatusAfter: "1_day",
      });
      expect(set).toMatchObject({ emoji: "rocket", message: "shipping", availability: "not_set" });
      expect(Date.parse(set.clear_status_at as string)).toBeGreaterThan(Date.now());
      expect(await own.Users.showStatus()).toEqual(set);
      expect(await root.Users.showStatus({ iDOrUsername: user.id })).toEqual(set);
      expect(await root.Users.showStatus({ iDOrUsername: user.username })).toEqual(set);
      expect(await refusal(own.Users.editStatus({ emoji: "no_such_emoji" }))).toMatchObject({ status: 400 });
    });

    it("Users.allActivities lists the user once they were active today", async () => {
      const today = new Date().toISOString().slice(0, 10);
      await within(PROPAGATION_MS, async () => {
        const all = await root.Users.allActivities({ from: today, maxPages: 100, perPage: 100 });
        return all.some((a) => a.username === user.username && a.last_activity_on === today);
      });
      expect(await refusal(own.Users.allActivities())).toMatchObject({ status: 403 });
    });
  });
}
