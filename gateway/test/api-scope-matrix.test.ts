/**
 * Token-scope matrix, generated from the endpoint declarations (routes/api.ts): every endpoint × the
 * personal access tokens and OAuth tokens of one administrator with different scopes (CALLERS; GET
 * endpoints also as HEAD, with HEAD_CALLERS) → the answer GitLab gives (api-scope-model.ts). An
 * endpoint added there is covered without a test of its own.
 *
 * - A token whose scopes do not reach the endpoint: 403 with GitLab's exact `insufficient_scope`
 *   body (the scopes that would have, the class's first) and no `WWW-Authenticate`. The request is
 *   well formed and aimed at real resources (api-scope-requests.ts), so a write let through would
 *   have changed a row: no row of any table may change (table-checksums.ts).
 * - A token whose scopes reach a read: the status the same kind of token with `api` gets.
 * - A token whose scopes reach a write: the parameter check's 400 (one parameter is refused on
 *   purpose, so nothing is written); past the scope check, that is the only way to tell.
 * - `DELETE /personal_access_tokens/self`, which has no parameter to refuse, runs last: any personal
 *   access token may revoke itself (204, then 401 revoked).
 */
import { API_ENDPOINTS } from "../src/routes/api";
import type { Endpoint } from "../src/http/endpoint";
import { realResources, type RealResources } from "./api-real-resources";
import { insufficientScope, reaches } from "./api-scope-model";
import { refusedByParams, wellFormed, type MatrixRequest } from "./api-scope-requests";
import { settledChecksums, WHAT_READS_CHANGE } from "./table-checksums";
import { createToken, createUser, PASSWORD, REVOKED, startStack, type Reply, type Stack } from "./support";

interface Caller {
  label: string;
  kind: "personal access token" | "OAuth token";
  scopes: string[];
  /** Acts as another administrator (Sudo header); the token then needs `sudo`. */
  sudo?: true;
  headers: Record<string, string>;
}

const CALLERS: Omit<Caller, "headers">[] = [
  ...[
    ["api"],
    ["read_api"],
    ["read_user"],
    ["read_repository"],
    ["write_repository"],
    ["sudo"],
    ["admin_mode"],
    ["read_user", "read_repository"],
  ].map((scopes) => ({ label: `PAT [${scopes.join(" ")}]`, kind: "personal access token" as const, scopes })),
  { label: "PAT [sudo] as another admin", kind: "personal access token", scopes: ["sudo"], sudo: true },
  ...[["api"], ["read_api"], ["read_user"], ["openid", "profile", "email"]].map((scopes) => ({
    label: `OAuth [${scopes.join(" ")}]`,
    kind: "OAuth token" as const,
    scopes,
  })),
];

/** Requests in flight at once: quick, without crowding a shared machine. */
const IN_FLIGHT = 8;

let stack: Stack;
let real: RealResources;
let callers: Caller[];
let before: Record<string, string>;
let cases = 0;

// A stack with the ldap and hooks services, 13 tokens and 4 password grants: slow on a busy machine.
beforeAll(async () => {
  stack = await startStack({ ldap: {}, hooks: {}, gateways: [{ CANOPY_RATE_LIMIT_OAUTH: "1000000" }] });
  real = await realResources(stack);
  const admin = await createUser(stack, { admin: true });
  const otherAdmin = await createUser(stack, { admin: true });
  const app = await oauthApplication();
  callers = [];
  for (const c of CALLERS) {
    const secret =
      c.kind === "OAuth token"
        ? await oauthToken(app, admin.username, c.scopes)
        : (await createToken(stack, admin.id, c.scopes)).token;
    const headers: Record<string, string> =
      c.kind === "OAuth token" ? { Authorization: `Bearer ${secret}` } : { "PRIVATE-TOKEN": secret };
    if (c.sudo) headers.Sudo = otherAdmin.username;
    callers.push({ ...c, headers });
    // A token's first use may record things about it; the matrix starts after that.
    await stack.gw.get("/api/v4/version", { headers });
  }
  before = await settledChecksums(stack.db, WHAT_READS_CHANGE);
}, 120_000);
afterAll(() => stack.stop(), 30_000);

async function oauthApplication() {
  const res = await stack.gw.post("/api/v4/applications", {
    token: stack.rootToken,
    json: {
      name: "scope-matrix",
      redirect_uri: "https://example.com/cb",
      scopes: "api read_api read_user openid profile email",
    },
  });
  if (res.status !== 201) throw new Error(`creating an application: ${res.status} ${res.text}`);
  return res.body as { application_id: string; secret: string };
}

async function oauthToken(
  app: { application_id: string; secret: string },
  username: string,
  scopes: string[],
) {
  const res = await stack.gw.post("/oauth/token", {
    form: {
      grant_type: "password",
      username,
      password: PASSWORD,
      client_id: app.application_id,
      client_secret: app.secret,
      scope: scopes.join(" "),
    },
  });
  if (res.status !== 200) throw new Error(`an OAuth token: ${res.status} ${res.text}`);
  return (res.body as { access_token: string }).access_token;
}

const send = (caller: Caller, r: MatrixRequest, method = r.method) =>
  stack.gw.request(method, r.path, { headers: caller.headers, json: r.json });

const reached = (caller: Caller, e: Endpoint, method: string) =>
  caller.sudo === true || reaches(e, method, caller.scopes);

/** What is wrong with a refusal by scope, if anything. */
function refusalProblem(e: Endpoint, res: Reply): string | undefined {
  const wanted = insufficientScope(e);
  if (res.status !== 403 || JSON.stringify(res.body) !== JSON.stringify(wanted))
    return `wanted 403 ${JSON.stringify(wanted)}`;
  if (res.headers.get("content-type") !== "application/json") return "wanted Content-Type application/json";
  if (res.headers.has("www-authenticate")) return "wanted no WWW-Authenticate (as GitLab)";
  return undefined;
}

/** Runs `work` over `items`, IN_FLIGHT at a time. */
async function inFlight<T>(items: T[], work: (item: T) => Promise<void>) {
  const queue = [...items];
  const worker = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** Each endpoint with the methods it answers: GET ones also as HEAD. */
const rows = () =>
  API_ENDPOINTS.flatMap((e) => (e.method === "GET" ? ["GET", "HEAD"] : [e.method]).map((m) => ({ e, m })));

/**
 * HEAD runs GET's route and checks: it is sent with the tokens whose scopes name HEAD in GitLab's
 * conditions (read_api, read_user) or reach nothing, and with api for the baseline, not with every one.
 */
const HEAD_CALLERS = [
  "PAT [api]",
  "PAT [read_api]",
  "PAT [read_user]",
  "PAT [read_repository]",
  "OAuth [api]",
  "OAuth [read_api]",
];

/** A write without parameters, which a reached token cannot be stopped short of (the last test). */
const isSelfRevocation = (e: Endpoint) =>
  e.method !== "GET" && refusedByParams(e, wellFormed(e, real)) === undefined;

test("every endpoint × every token scope answers as GitLab does, and a refused write changes nothing", async () => {
  const problems: string[] = [];
  // What a token with `api` of each kind gets for each read: a read another scope reaches gets the same.
  const baseline = new Map<string, number>();
  const requests = new Map(API_ENDPOINTS.map((e) => [e, wellFormed(e, real)]));
  await inFlight(
    rows().filter(({ m }) => m === "GET" || m === "HEAD"),
    async ({ e, m }) => {
      for (const kind of ["personal access token", "OAuth token"]) {
        const api = callers.find((c) => c.kind === kind && c.scopes.join() === "api" && !c.sudo)!;
        baseline.set(`${kind} ${m} ${e.path}`, (await send(api, requests.get(e)!, m)).status);
      }
    },
  );
  const work = rows().flatMap((row) =>
    callers
      .filter((c) => row.m !== "HEAD" || HEAD_CALLERS.includes(c.label))
      .map((caller) => ({ ...row, caller })),
  );
  await inFlight(work, async ({ e, m, caller }) => {
    if (isSelfRevocation(e) && reached(caller, e, m)) return; // the last test
    const request = requests.get(e)!;
    const read = m === "GET" || m === "HEAD";
    let res: Reply;
    let problem: string | undefined;
    if (!reached(caller, e, m)) {
      res = await send(caller, request, m);
      problem = m === "HEAD" ? headProblem(res, 403) : refusalProblem(e, res);
    } else if (read) {
      res = await send(caller, request, m);
      const wanted = baseline.get(`${caller.kind} ${m} ${e.path}`)!;
      if (res.status !== wanted || res.status >= 500) problem = `wanted ${wanted}, as with api`;
    } else {
      res = await send(caller, refusedByParams(e, request)!);
      if (res.status !== 400) problem = "wanted the parameter check's 400: past the scope check";
    }
    cases++;
    if (problem)
      problems.push(`${caller.label} ${m} ${e.path}: ${res.status} ${res.text.slice(0, 200)} — ${problem}`);
  });
  console.log(`api-scope-matrix: ${cases} endpoint × scope cases, ${problems.length} wrong`);
  const after = await settledChecksums(stack.db, WHAT_READS_CHANGE);
  const changedTables = Object.keys({ ...before, ...after }).filter((t) => before[t] !== after[t]);
  expect({ problems: problems.sort(), changedTables }).toEqual({ problems: [], changedTables: [] });
}, 120_000);

/** A HEAD answer has no body: only its status can be checked. */
const headProblem = (res: Reply, status: number) =>
  res.status === status && res.text === "" ? undefined : `wanted ${status} without a body`;

test("any personal access token may revoke itself, whatever its scopes; an OAuth token may not", async () => {
  const problems: string[] = [];
  const selfRevocations = API_ENDPOINTS.filter(isSelfRevocation);
  expect(selfRevocations.map((e) => `${e.method} ${e.path}`)).toEqual([
    "DELETE /personal_access_tokens/self",
  ]);
  for (const e of selfRevocations)
    for (const caller of callers) {
      const res = await stack.gw.request(e.method, `/api/v4${e.path}`, { headers: caller.headers });
      cases++;
      const label = `${caller.label} ${e.method} ${e.path}: ${res.status} ${res.text.slice(0, 200)}`;
      if (!reached(caller, e, e.method)) {
        const problem = refusalProblem(e, res);
        if (problem) problems.push(`${label} — ${problem}`);
      } else if (caller.kind === "OAuth token") {
        // `self` is a personal access token; an OAuth token's id numbers another table.
        if (res.status !== 401) problems.push(`${label} — wanted 401`);
      } else {
        const after = await stack.gw.get("/api/v4/personal_access_tokens/self", { headers: caller.headers });
        if (res.status !== 204 || JSON.stringify(after.body) !== JSON.stringify(REVOKED))
          problems.push(
            `${label} — wanted 204, then ${JSON.stringify(REVOKED)}; then ${after.status} ${after.text}`,
          );
      }
    }
  console.log(`api-scope-matrix: ${cases} cases in all`);
  expect(problems).toEqual([]);
}, 30_000);
