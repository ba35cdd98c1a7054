// Runs a python-gitlab scenario script of e2e/python/ (Debian's python3-gitlab, unchanged) against the
// stack: every password and token it made becomes a secret the logs may not carry; its last stdout
// line is the JSON report.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { REPO_ROOT } from "./stack";
import type { Session } from "./session";

/** Debian's interpreter: the python-gitlab package lives there, not in a pyenv on PATH. */
const PYTHON = process.env.CANOPY_E2E_PYTHON ?? "/usr/bin/python3";

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Report {
  ok: boolean;
  passed?: string[];
  failed?: unknown;
}

/** Runs e2e/python/<script> with `args` and the environment given (no stack variables added). */
export function runPython(script: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    execFile(
      PYTHON,
      [path.join(REPO_ROOT, "e2e", "python", script), ...args],
      // No __pycache__ left in the repository by a test run.
      { env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", ...env }, timeout: 120_000 },
      (err, stdout, stderr) => {
        if (err && typeof err.code !== "number") return reject(err);
        resolve({ code: typeof err?.code === "number" ? err.code : 0, stdout, stderr });
      },
    );
  });
}

/** Runs the script against the session's stack and parses its report. */
export async function runScenarios(
  session: Session,
  folder: string,
  script: string,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<Outcome & { report: Report }> {
  const secretsFile = path.join(folder, `secrets-${Date.now()}`);
  const outcome = await runPython(script, args, {
    ...env,
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
  try {
    return { ...outcome, report: JSON.parse(last) as Report };
  } catch {
    throw new Error(`no JSON report (exit ${outcome.code}): ${outcome.stdout}\n${outcome.stderr}`);
  }
}
