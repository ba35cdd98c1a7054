/**
 * Whole-API property fuzz with fast-check, generated from the endpoint declarations (routes/api.ts):
 * an endpoint added there is fuzzed without a test of its own. For every endpoint and each of
 * anonymous, a user and an administrator, fast-check draws malformed requests from the endpoint's
 * declared parameters (api-property-requests.ts, api-property-values.ts). Properties:
 *  - no answer is a 5xx; a 4xx in JSON names a `message` or an `error`;
 *  - no row of any table of any service changed (table-checksums.ts), though path ids are often
 *    real: every write is refused by its parameter check (one declared parameter is "poisoned"),
 *    except a user's writes aimed at resources of others, which must be refused by the handler.
 * Reads (GET) are sent as drawn, valid or not, so they reach their handlers with real ids.
 *
 * The seed is fixed so CI is reproducible; CANOPY_FUZZ_SEED=<n> explores others. A failure prints
 * the shrunk request (method, path, body) and fast-check's seed and path to replay it. While
 * exploring: CANOPY_FUZZ_RUNS=<n> runs per endpoint and role, CANOPY_FUZZ_NO_SHRINK=1 stops at the
 * first failure of each endpoint.
 */
import fc from "fast-check";
import { API_ENDPOINTS } from "../src/routes/api";
import type { Endpoint } from "../src/http/endpoint";
import { drawRequest, type FuzzRequest } from "./api-property-requests";
import { settledChecksums, WHAT_READS_CHANGE } from "./table-checksums";
import { realFor as realValuesFor, realResources, type RealResources } from "./api-real-resources";
import { signedInUser, startStack, type Reply, type Stack } from "./support";

const SEED = Number(process.env.CANOPY_FUZZ_SEED ?? 20_240_611);
/** At least 10,000 requests in all, however many endpoints there are. */
const RUNS = Number(process.env.CANOPY_FUZZ_RUNS ?? Math.ceil(10_200 / (3 * API_ENDPOINTS.length)));
/** Requests in flight at once: quick, without crowding a shared machine. */
const IN_FLIGHT = 8;

/** What reads may change (table-checksums.ts); everything else in the database must stay as it was. */
const IGNORED = WHAT_READS_CHANGE;

let stack: Stack;
const tokens: Record<"user" | "admin", string> = { user: "", admin: "" };
let real: RealResources = {};
let before: Record<string, string>;
let sent = 0;
const reached = new Set<string>();

beforeAll(async () => {
  console.log(`api-property-fuzz seed ${SEED} (CANOPY_FUZZ_SEED), ${RUNS} runs per endpoint and role`);
  stack = await startStack({ ldap: {}, hooks: {} });
  tokens.user = (await signedInUser(stack, ["api"])).secret;
  tokens.admin = (await signedInUser(stack, ["api", "sudo"], { admin: true })).secret;
  real = await realResources(stack);
  before = await settledChecksums(stack.db, IGNORED);
}, 60_000);
afterAll(() => stack.stop(), 30_000);

/** Real values for a path parameter (api-real-resources.ts). */
const realFor = (e: Endpoint, name: string) => realValuesFor(real, e, name);

type Role = "anonymous" | "user" | "admin";

async function send(role: Role, r: FuzzRequest): Promise<Reply> {
  const token = r.bogusToken
    ? "glpat-unknownFuzzToken0000000"
    : role === "anonymous"
      ? undefined
      : tokens[role];
  const res = await stack.gw.request(r.method, r.path, { ...r.options, token });
  sent++;
  return res;
}

/** What the answer must be, whatever was asked; undefined when it is. */
function problemWith(res: Reply): string | undefined {
  if (res.status >= 500) return "a 5xx";
  const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
  if (res.status >= 400 && json) {
    const body = res.body as Record<string, unknown> | undefined;
    if (!body || (body.message === undefined && body.error === undefined))
      return "a 4xx without message or error";
  }
  return undefined;
}

const describeRequest = (role: Role, r: FuzzRequest) => {
  const raw = r.options.raw;
  const body = raw === undefined ? "" : String(raw).slice(0, 400);
  return `${role} ${r.method} ${r.path.slice(0, 400)} ${JSON.stringify(r.options.headers ?? {})} ${body}`;
};

/** A stable seed per endpoint and role, so each endpoint explores its own values. */
function seedFor(role: Role, e: Endpoint): number {
  let h = SEED;
  for (const c of `${role} ${e.method} ${e.path}`) h = (Math.imul(h, 31) + c.charCodeAt(0)) | 0;
  return h;
}

async function fuzzEndpoint(role: Role, e: Endpoint): Promise<string | undefined> {
  const writes = e.method !== "GET";
  const hasPath =
    e.path.includes(":") && [...e.path.matchAll(/:([a-z_]+)/g)].every((m) => realFor(e, m[1]!).length);
  let lastFailure = "";
  const property = fc.asyncProperty(fc.gen(), async (g) => {
    // A user's write may be valid when aimed at root's private resources only: the handler must refuse.
    const foreign = writes && role === "user" && hasPath && g(fc.boolean);
    const r = drawRequest(g, e, { poison: writes && !foreign, real: realFor, realPathOnly: foreign });
    const res = await send(role, r).catch((err: Error) => err);
    reached.add(`${e.method} ${e.path}`);
    const problem =
      res instanceof Error ? `no answer (${res.message}, ${String(res.cause)})` : problemWith(res);
    if (!problem) return;
    const answer = res instanceof Error ? "" : ` -> ${res.status} ${res.text.slice(0, 300)}`;
    // The last failure seen is the one fast-check shrank to.
    lastFailure = `${problem}: ${describeRequest(role, r)}${answer}`;
    throw new Error(lastFailure);
  });
  try {
    await fc.assert(property, {
      seed: seedFor(role, e),
      numRuns: RUNS,
      // An endpoint's runs take a second or two: only shrinking goes on longer, and it may stop.
      interruptAfterTimeLimit: 20_000,
      markInterruptAsFailure: true,
      endOnFailure: Boolean(process.env.CANOPY_FUZZ_NO_SHRINK),
    });
    return undefined;
  } catch (err) {
    // fast-check's first lines say how to replay (seed, path); its counterexample is gen's raw draws.
    const replay = (err as Error).message.split("\n").slice(0, 2).join(" ");
    return `${lastFailure}\n  ${replay}`;
  }
}

/** Every endpoint, `IN_FLIGHT` endpoints at a time (each one's runs in turn). */
async function fuzzAll(role: Role): Promise<string[]> {
  const failures: string[] = [];
  const queue = [...API_ENDPOINTS];
  const worker = async () => {
    for (let e = queue.shift(); e; e = queue.shift()) {
      const failure = await fuzzEndpoint(role, e);
      if (failure) failures.push(failure);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return failures;
}

test.each<Role>(["anonymous", "user", "admin"])(
  "no /api/v4 endpoint answers 5xx to fast-check's malformed requests as %s",
  async (role) => {
    expect(await fuzzAll(role)).toEqual([]);
  },
  120_000,
);

test("the fuzz sent at least 10,000 requests, to every declared endpoint", () => {
  console.log(`api-property-fuzz sent ${sent} requests to ${reached.size} endpoints (seed ${SEED})`);
  expect(sent).toBeGreaterThanOrEqual(10_000);
  expect([...reached].sort()).toEqual(API_ENDPOINTS.map((e) => `${e.method} ${e.path}`).sort());
});

test("no row of any service's table changed", async () => {
  const after = await settledChecksums(stack.db, IGNORED);
  const changed = Object.keys({ ...before, ...after }).filter((t) => before[t] !== after[t]);
  expect(changed).toEqual([]);
}, 30_000);
