// python-gitlab (Debian's python3-gitlab, unchanged) drives the Groups API through the stack:
// e2e/python/groups_e2e.py runs its scenarios and prints one JSON line of results.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { REPO_ROOT } from "../support/stack";
import type { Session } from "../support/session";

/** Debian's interpreter: the python-gitlab package lives there, not in a pyenv on PATH. */
const PYTHON = process.env.CANOPY_E2E_PYTHON ?? "/usr/bin/python3";
const SCRIPT = path.join(REPO_ROOT, "e2e", "python", "groups_e2e.py");

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

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

function run(args: string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      [SCRIPT, ...args],
      // No __pycache__ left in the repository by a test run.
      { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env }, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") return reject(err);
        resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
  });
}

export function pythonGitlabGroups(session: Session) {
  describe("python-gitlab against the Groups API", () => {
    let folder: string;

    beforeAll(() => {
      folder = mkdtempSync(path.join(tmpdir(), "canopy-python-gitlab-"));
    });
    afterAll(() => rmSync(folder, { recursive: true, force: true }));

    /** Runs the script; every password and token it made becomes a secret the logs may not carry. */
    async function script(args: string[]) {
      const secretsFile = path.join(folder, `secrets-${Date.now()}`);
      const outcome = await run(args, {
        CANOPY_URL: session.stack.url,
        CANOPY_ROOT_TOKEN: session.stack.rootToken,
        CANOPY_SECRETS_FILE: secretsFile,
      });
      try {
        for (const line of readFileSync(secretsFile, "utf8").split("\n")) if (line) session.secrets.add(line);
      } catch {
        // nothing made
      }
      const last = outcome.stdout.trim().split("\n").pop() ?? "";
      let report: unknown;
      try {
        report = JSON.parse(last);
      } catch {
        throw new Error(`no JSON report (exit ${outcome.code}): ${outcome.stdout}\n${outcome.stderr}`);
      }
      return { ...outcome, report: report as { ok: boolean; passed?: string[]; failed?: unknown } };
    }

    it("every scenario passes", async () => {
      const { code, report, stderr } = await script([]);
      // The whole report on failure: which scenario, what python-gitlab raised, where.
      expect({ code, report, stderr }).toEqual({
        code: 0,
        report: { ok: true, passed: SCENARIOS, python_gitlab: expect.stringMatching(/^3\./) },
        stderr: "",
      });
    }, 150_000);

    it("the script reports a failure with a non-zero exit, not a pass", async () => {
      // Against a gateway that refuses the root token, the first scenario must fail loudly.
      const outcome = await run(["users_and_tokens"], {
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
