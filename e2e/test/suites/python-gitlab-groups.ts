// python-gitlab (Debian's python3-gitlab, unchanged) drives the Groups API through the stack:
// e2e/python/groups_e2e.py runs its scenarios and prints one JSON line of results.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { runPython, runScenarios } from "../support/python-gitlab";
import type { Session } from "../support/session";

const SCENARIOS = [
  "users_and_tokens",
  "create_top_and_subgroup",
  "get_by_id_and_full_path",
  "save_description_and_visibility",
  "list_paging_keyset_and_offset",
  "subgroups_and_descendants",
  "avatar_upload",
  "filters",
  "members",
  "custom_attributes_as_admin",
  "share_and_unshare",
  "transfer",
  "delete_and_restore",
  "push_rules",
  "remove_subgroup_permanently",
  "namespaces",
  "errors",
];

export function pythonGitlabGroups(session: Session) {
  describe("python-gitlab against the Groups API", () => {
    let folder: string;

    beforeAll(() => {
      folder = mkdtempSync(path.join(tmpdir(), "canopy-python-gitlab-"));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it("every scenario passes", async () => {
      const { code, report, stderr } = await runScenarios(session, folder, "groups_e2e.py");
      // The whole report on failure: which scenario, what python-gitlab raised, where.
      expect({ code, report, stderr }).toEqual({
        code: 0,
        report: { ok: true, passed: SCENARIOS, python_gitlab: expect.stringMatching(/^3\./) },
        stderr: "",
      });
    }, 150_000);

    it("the script reports a failure with a non-zero exit, not a pass", async () => {
      // Against a gateway that refuses the root token, the first scenario must fail loudly.
      const outcome = await runPython("groups_e2e.py", ["users_and_tokens"], {
        CANOPY_URL: session.stack.url,
        CANOPY_ROOT_TOKEN: "glpat-not-a-real-token-000000",
      });
      expect(outcome.code).toBe(1);
      expect(JSON.parse(outcome.stdout.trim())).toMatchObject({
        ok: false,
        passed: [],
        failed: { scenario: "users_and_tokens", error: expect.stringContaining("401") },
      });
    }, 60_000);
  });
}
