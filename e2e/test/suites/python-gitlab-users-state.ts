// python-gitlab (Debian's python3-gitlab, unchanged) drives the user state actions through the stack:
// e2e/python/users_state_e2e.py runs its scenarios and prints one JSON line of results.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createUser } from "../support/api";
import { runScenarios } from "../support/python-gitlab";
import type { Session } from "../support/session";
import { setUserStateInDatabase } from "./users-state-db";

const SCENARIOS = [
  "users_and_tokens",
  "block_and_unblock",
  "ban_and_unban",
  "deactivate_and_activate",
  "refusals",
  "list_filters",
  "approve_and_reject",
];

export function pythonGitlabUsersState(session: Session) {
  describe("python-gitlab against the user state actions", () => {
    let folder: string;

    beforeAll(() => {
      folder = mkdtempSync(path.join(tmpdir(), "canopy-python-gitlab-state-"));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    it("every scenario passes", async () => {
      const { url, rootToken } = session.stack;
      const pending = [
        await createUser(url, rootToken, session.secrets),
        await createUser(url, rootToken, session.secrets),
      ].map((u) => u.id);
      await setUserStateInDatabase(session, pending, "blocked_pending_approval");
      const { code, report, stderr } = await runScenarios(session, folder, "users_state_e2e.py", [], {
        CANOPY_PENDING_USERS: pending.join(","),
      });
      // The whole report on failure: which scenario, what python-gitlab raised, where.
      expect({ code, report, stderr }).toEqual({
        code: 0,
        report: { ok: true, passed: SCENARIOS, python_gitlab: expect.stringMatching(/^3\./) },
        stderr: "",
      });
    }, 150_000);
  });
}
