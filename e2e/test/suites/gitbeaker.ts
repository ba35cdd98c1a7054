// A real GitLab client, unchanged: gitbeaker drives users and personal access tokens through the stack.
import { randomBytes } from "node:crypto";
import { Gitlab } from "@gitbeaker/rest";
import { unique } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import type { Session } from "../support/session";

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

export function gitbeaker(session: Session) {
  describe("gitbeaker against the stack", () => {
    let root: Client;
    const created: { id: number; username: string }[] = [];

    beforeAll(() => {
      root = new Gitlab({ host: session.stack.url, token: session.stack.rootToken });
    });

    it("Users.showCurrentUser answers root", async () => {
      const me = await root.Users.showCurrentUser();
      expect(me).toMatchObject({ username: "root", is_admin: true, state: "active" });
    });

    it("Users.create makes users with a password, confirmed", async () => {
      for (let i = 0; i < 4; i++) {
        const username = unique("gb-");
        const password = session.secrets.add(`pw-${randomBytes(12).toString("base64url")}`);
        const user = await root.Users.create({
          username,
          email: `${username}@example.com`,
          name: `Gitbeaker ${i}`,
          password,
          skipConfirmation: true,
        });
        expect(user).toMatchObject({ username, email: `${username}@example.com`, state: "active" });
        expect(user.confirmed_at).toEqual(expect.any(String));
        created.push({ id: user.id as number, username });
      }
    });

    it("Users.all follows Link headers page by page and reads the X- headers", async () => {
      const everyone = await root.Users.all({ perPage: 100 });
      const total = everyone.length;
      expect(total).toBeGreaterThanOrEqual(created.length + 1);

      // Small pages, all of them: gitbeaker follows rel="next" until there is none.
      const walked = await root.Users.all({ perPage: 2 });
      expect(walked.map((u) => u.id).sort()).toEqual(everyone.map((u) => u.id).sort());

      // Two pages only, with the pagination headers gitbeaker parses.
      const twoPages = await root.Users.all({ perPage: 2, maxPages: 2, showExpanded: true });
      expect(twoPages.data).toHaveLength(4);
      expect(twoPages.paginationInfo).toEqual({
        total,
        next: total > 4 ? 3 : null,
        current: 2,
        previous: 1,
        perPage: 2,
        totalPages: Math.ceil(total / 2),
      });
    });

    it("Users.show answers the user", async () => {
      const target = created[0]!;
      expect(await root.Users.show(target.id)).toMatchObject({
        id: target.id,
        username: target.username,
        name: "Gitbeaker 0",
        email: `${target.username}@example.com`,
      });
    });

    // gitbeaker sends Users.edit as multipart/form-data (it may carry an avatar file), as GitLab accepts.
    it("Users.edit changes the user", async () => {
      const target = created[0]!;
      const edited = await root.Users.edit(target.id, { name: "Renamed by gitbeaker", bio: "hello" });
      expect(edited).toMatchObject({ id: target.id, name: "Renamed by gitbeaker", bio: "hello" });
      expect(await root.Users.show(target.id)).toMatchObject({ name: "Renamed by gitbeaker", bio: "hello" });
    });

    it("Users.block and Users.unblock", async () => {
      const target = created[1]!;
      await root.Users.block(target.id);
      expect(await root.Users.show(target.id)).toMatchObject({ state: "blocked" });
      const blocked = await root.Users.all({ blocked: true, perPage: 100 });
      expect(blocked.map((u) => u.id)).toContain(target.id);
      await root.Users.unblock(target.id);
      expect(await root.Users.show(target.id)).toMatchObject({ state: "active" });
    });

    it("Users.remove deletes; the user is then 404", async () => {
      const target = created[3]!;
      await root.Users.remove(target.id);
      expect(await refusal(root.Users.show(target.id))).toEqual({
        status: 404,
        description: "404 User Not Found",
      });
    });

    it("personal access tokens: create, list, show, show self, revoke; the revoked token gets 401", async () => {
      const owner = created[2]!;
      const expiresAt = inDays(30);
      const made = await root.PersonalAccessTokens.create(owner.id, "gitbeaker token", ["api", "read_user"], {
        expiresAt,
      });
      session.secrets.add(made.token);
      expect(made).toMatchObject({
        name: "gitbeaker token",
        user_id: owner.id,
        scopes: ["api", "read_user"],
        active: true,
        revoked: false,
        expires_at: expiresAt,
        token: expect.stringMatching(/^glpat-/),
      });

      // The same call under its Users name.
      const second = await root.Users.createPersonalAccessToken(owner.id, "second", ["api"]);
      session.secrets.add(second.token);
      expect(second).toMatchObject({
        user_id: owner.id,
        scopes: ["api"],
        token: expect.stringMatching(/^glpat-/),
      });

      const listed = await root.PersonalAccessTokens.all({ userId: owner.id });
      expect(listed.map((t) => t.id).sort()).toEqual([made.id, second.id].sort());
      for (const t of listed) expect(t).not.toHaveProperty("token");

      expect(await root.PersonalAccessTokens.show({ tokenId: made.id })).toMatchObject({
        id: made.id,
        name: "gitbeaker token",
      });

      const asOwner = new Gitlab({ host: session.stack.url, token: made.token });
      expect(await asOwner.Users.showCurrentUser()).toMatchObject({ id: owner.id, username: owner.username });
      expect(await asOwner.PersonalAccessTokens.show()).toMatchObject({ id: made.id, user_id: owner.id });

      await root.PersonalAccessTokens.remove({ tokenId: made.id });
      expect(await root.PersonalAccessTokens.show({ tokenId: made.id })).toMatchObject({
        revoked: true,
        active: false,
      });
      // gitbeaker reports GitLab's `error` field (invalid_token) as the description.
      expect(await refusal(asOwner.Users.showCurrentUser())).toEqual({
        status: 401,
        description: "invalid_token",
      });

      // A token revokes itself (DELETE /personal_access_tokens/self).
      const selfRevoking = new Gitlab({ host: session.stack.url, token: second.token });
      await selfRevoking.PersonalAccessTokens.remove();
      expect((await refusal(selfRevoking.Users.showCurrentUser())).status).toBe(401);
    });
  });
}
