// gitbeaker, unchanged, drives the user profile parts: an avatar with Users.edit (multipart; its
// Users.create sends JSON, which cannot carry a file), served at its avatar_url, and Search.all over users.
import { Gitlab } from "@gitbeaker/rest";
import { createToken, createUser, unique } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import type { Session } from "../support/session";

// A 1x1 PNG.
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

export function usersProfile(session: Session) {
  describe("gitbeaker against users' profiles (avatars, search)", () => {
    let root: Client;
    let erin: Client;
    let erinUser: { id: number; username: string };
    const run = unique("");

    beforeAll(async () => {
      const { url, rootToken } = session.stack;
      root = new Gitlab({ host: url, token: rootToken });
      erinUser = await createUser(url, rootToken, session.secrets);
      const { token } = await createToken(url, rootToken, erinUser.id, session.secrets);
      erin = new Gitlab({ host: url, token });
    });

    it("Users.create sends an avatar as JSON (not a file): 400 `avatar is invalid`, as GitLab", async () => {
      // gitbeaker 43's Users.create posts JSON, where a Blob is `{}`: GitLab's file type refuses it.
      const username = `gb-avatar-${run}`;
      const bad = await refusal(
        root.Users.create({
          username,
          email: `${username}@example.com`,
          name: `GB Avatar ${run}`,
          password: "Correct-Horse-42",
          avatar: { content: new Blob([PNG]), filename: "face.png" },
        }),
      );
      expect(bad).toEqual({ status: 400, description: "avatar is invalid" });
      expect(await root.Users.all({ username })).toEqual([]);
    });

    it("Users.edit uploads the avatar (multipart); its avatar_url serves the same bytes", async () => {
      const made = await root.Users.edit(erinUser.id, {
        avatar: { content: new Blob([PNG]), filename: "face.png" },
      });
      const url = made.avatar_url as string;
      expect(url).toMatch(new RegExp(`/uploads/-/system/user/avatar/${erinUser.id}/face\\.png$`));
      const file = await fetch(session.stack.url + new URL(url).pathname);
      expect(file.status).toBe(200);
      expect(file.headers.get("content-type")).toBe("image/png");
      expect(Buffer.from(await file.arrayBuffer()).equals(PNG)).toBe(true);
    });

    it("Users.edit replaces the avatar, and refuses a file that is not an image", async () => {
      const edited = await root.Users.edit(erinUser.id, {
        avatar: { content: new Blob([PNG]), filename: "erin.png" },
      });
      expect(edited.avatar_url).toMatch(/\/erin\.png$/);
      const shown = await erin.Users.showCurrentUser();
      expect(shown.avatar_url).toBe(edited.avatar_url);
      const bad = await refusal(
        root.Users.edit(erinUser.id, { avatar: { content: new Blob(["<svg/>"]), filename: "x.png" } }),
      );
      expect(bad.status).toBe(400);
      expect(bad.description).toContain("file format is not supported");
    });

    it("Users.show: administrators get UserDetailsWithAdmin (highest role, sign-in details); others not", async () => {
      const byRoot = (await root.Users.show(erinUser.id)) as Record<string, unknown>;
      expect(byRoot).toMatchObject({
        highest_role: 0,
        sign_in_count: 0,
        current_sign_in_ip: null,
        last_sign_in_ip: null,
      });
      const bySelf = (await erin.Users.show(erinUser.id)) as Record<string, unknown>;
      for (const key of ["highest_role", "sign_in_count", "current_sign_in_ip", "last_sign_in_ip"])
        expect(bySelf).not.toHaveProperty(key);
    });

    it("Search.all finds users; an unknown scope is a 400", async () => {
      const found = await erin.Search.all("users", erinUser.username);
      expect(found.map((u) => u.id)).toEqual([erinUser.id]);
      const none = await erin.Search.all("issues", "anything");
      expect(none).toEqual([]);
      const bad = await refusal(erin.Search.all("nonsense" as "users", "x"));
      expect(bad.status).toBe(400);
    });
  });
}
