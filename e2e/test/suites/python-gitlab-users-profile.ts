// python-gitlab (Debian's python3-gitlab, unchanged) drives users' avatars and search:
// e2e/python/users_profile_e2e.py runs its scenarios and prints one JSON line of results.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runScenarios } from "../support/python-gitlab";
import type { Session } from "../support/session";

const SCENARIOS = ["users", "avatar_on_create", "avatar_on_update", "search_users"];

export function pythonGitlabUsersProfile(session: Session) {
  describe("python-gitlab against users' profiles", () => {
    let folder: string;

    beforeAll(() => {
      folder = mkdtempSync(path.join(tmpdir(), "canopy-python-gitlab-"));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it("every scenario passes", async () => {
      const { code, report, stderr } = await runScenarios(session, folder, "users_profile_e2e.py");
      expect({ code, report, stderr }).toEqual({
        code: 0,
        report: { ok: true, passed: SCENARIOS, python_gitlab: expect.stringMatching(/^3\./) },
        stderr: "",
      });
    }, 120_000);
  });
}
