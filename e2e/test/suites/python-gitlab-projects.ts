// python-gitlab (Debian's python3-gitlab, unchanged) drives the Projects API through the stack:
// e2e/python/projects_e2e.py runs its scenarios (projects, lists and their filters, the group
// project lists, members, sharing, stars, archive, transfer, what a second user may see) and prints
// one JSON line of results.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runScenarios } from "../support/python-gitlab";
import type { Session } from "../support/session";

const SCENARIOS = [
  "users_and_groups",
  "create_get_update",
  "second_user_sees_what_he_may",
  "stars_and_archive",
  "project_lists_with_filters",
  "group_projects_with_filters",
  "members",
  "share_and_unshare",
  "transfer_project",
  "delete",
];

export function pythonGitlabProjects(session: Session) {
  describe("python-gitlab against the Projects API", () => {
    let folder: string;

    beforeAll(() => {
      folder = mkdtempSync(path.join(tmpdir(), "canopy-python-gitlab-"));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it("every scenario passes", async () => {
      const { code, report, stderr } = await runScenarios(session, folder, "projects_e2e.py");
      // The whole report on failure: which scenario, what python-gitlab raised, where.
      expect({ code, report, stderr }).toEqual({
        code: 0,
        report: { ok: true, passed: SCENARIOS, python_gitlab: expect.stringMatching(/^3\./) },
        stderr: "",
      });
    }, 150_000);
  });
}
