// User custom attributes through python-gitlab (e2e/python/users_custom_attributes_e2e.py) and
// gitbeaker (UserCustomAttributes), both unchanged: administrators tag users and find them by tag.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Gitlab } from "@gitbeaker/rest";
import { createToken, createUser, unique } from "../support/api";
import { refusal, type Client } from "../support/gitbeaker";
import { runScenarios } from "../support/python-gitlab";
import type { Session } from "../support/session";

const SCENARIOS = ["users", "set_get_list_delete", "filter_users", "refused_to_others"];

export function usersCustomAttributes(session: Session) {
  describe("user custom attributes through python-gitlab and gitbeaker", () => {
    let folder: string;
    beforeAll(() => {
      folder = mkdtempSync(path.join(tmpdir(), "canopy-python-gitlab-"));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it("python-gitlab: every scenario passes", async () => {
      const { code, report, stderr } = await runScenarios(session, folder, "users_custom_attributes_e2e.py");
      expect({ code, report, stderr }).toEqual({
        code: 0,
        report: { ok: true, passed: SCENARIOS, python_gitlab: expect.stringMatching(/^3\./) },
        stderr: "",
      });
    }, 120_000);

    it("gitbeaker: UserCustomAttributes set, show, all, remove; a user is refused", async () => {
      const { url, rootToken } = session.stack;
      const root: Client = new Gitlab({ host: url, token: rootToken });
      const user = await createUser(url, rootToken, session.secrets);
      const { token } = await createToken(url, rootToken, user.id, session.secrets);
      const self: Client = new Gitlab({ host: url, token });
      const value = unique("gb-");

      expect(await root.UserCustomAttributes.set(user.id, "cohort", value)).toEqual({ key: "cohort", value });
      expect(await root.UserCustomAttributes.show(user.id, "cohort")).toEqual({ key: "cohort", value });
      expect(await root.UserCustomAttributes.all(user.id)).toEqual([{ key: "cohort", value }]);
      const tagged = await root.Users.all({ customAttributes: { cohort: value } } as never);
      expect(tagged.map((u) => u.id)).toEqual([user.id]);
      expect(await refusal(self.UserCustomAttributes.all(user.id))).toEqual({
        status: 403,
        description: "403 Forbidden",
      });
      await root.UserCustomAttributes.remove(user.id, "cohort");
      expect(await refusal(root.UserCustomAttributes.show(user.id, "cohort"))).toEqual({
        status: 404,
        description: "404 Not found",
      });
    });
  });
}
