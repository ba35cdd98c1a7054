/**
 * The Groups API permission matrix: every group endpoint, as anonymous, a signed-in non-member,
 * Guest to Owner (directly, inherited from the parent, through a share of the parent), a member of
 * the subgroup only, a blocked user, an external user and an administrator, against a public, an
 * internal and a private root and a subgroup of each. Expected answers come from the rules of
 * groups-matrix-model.ts (reference §2) and groups-matrix-endpoints.ts, never from a table of
 * statuses. Refused writes must leave the group as it was (root's view before and after); writes
 * that succeed are undone. Lists and counts must hold exactly what each caller may see. The group
 * webhook routes (groups-matrix-hooks.ts) run with the hooks service in the stack.
 */
import { READ_ENDPOINTS, type EndpointRule, type Watch } from "./groups-matrix-endpoints";
import { addHooks, HOOK_READ_ENDPOINTS, HOOK_WRITE_ENDPOINTS } from "./groups-matrix-hooks";
import { WRITE_ENDPOINTS } from "./groups-matrix-writes";
import { groupListProblems, detailProblems, listCallers, namespaceProblems } from "./groups-matrix-lists";
import { expectFor, type Expect } from "./groups-matrix-model";
import {
  buildWorld,
  callersOf,
  dropWorld,
  inBatches,
  targetsOf,
  VISIBILITIES,
  type Caller,
  type WGroup,
  type World,
} from "./groups-matrix-world";

jest.setTimeout(120_000);

let w: World;
beforeAll(async () => {
  w = await buildWorld();
  await addHooks(w);
}, 180_000);
afterAll(() => dropWorld(w));

interface Outcome {
  problem?: string;
  status: number;
  body: unknown;
}

async function run(rule: EndpointRule, g: WGroup, c: Caller): Promise<Outcome> {
  const req = rule.request(w, g);
  const expected: Expect = expectFor(w, c, g, rule.steps, rule.success(w, g));
  const res = await w.stack.gw.request(req.method, `/api/v4${req.path}`, { token: c.token, json: req.json });
  const same =
    res.status === expected.status &&
    (expected.body === undefined || JSON.stringify(res.body) === JSON.stringify(expected.body));
  const problem = same
    ? undefined
    : `${rule.name} on ${g.label} as ${c.label}: expected ${expected.status} ${
        expected.body === undefined ? "" : JSON.stringify(expected.body)
      }, got ${res.status} ${res.text.slice(0, 200)}`;
  return { problem, status: res.status, body: res.body };
}

/** Root's view of what a write of this endpoint could change, without what a re-creation renews. */
async function snapshot(g: WGroup, watch: Watch) {
  const path = {
    detail: "",
    subgroups: "/subgroups?per_page=100",
    members: "/members/all?per_page=100",
    rule: "/push_rule",
    attributes: "/custom_attributes",
    hooks: "/hooks?per_page=100",
  }[watch];
  const res = await w.stack.gw.get(`/api/v4/groups/${g.id}${path}`, { token: w.rootToken });
  const strip = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([key]) => key !== "created_at" && key !== "id"));
  const body = res.body as Record<string, unknown> | Record<string, unknown>[];
  if (watch === "rule") return JSON.stringify(strip(body as Record<string, unknown>));
  // The undo of a DELETE makes the hook again, with a new id.
  if (watch === "hooks") return JSON.stringify((body as Record<string, unknown>[]).map(strip));
  if (watch === "members")
    return JSON.stringify(
      (body as Record<string, unknown>[])
        .map((m): Record<string, unknown> => ({ ...m, created_at: undefined }))
        .sort((a, b) => Number(a.id) - Number(b.id)),
    );
  return JSON.stringify(body);
}

describe("what each caller may see", () => {
  it("lists hold exactly the groups each caller may see, and X-Total counts only those", async () => {
    const problems = (await inBatches(listCallers(w), 3, (c) => groupListProblems(w, c))).flat();
    expect(problems).toEqual([]);
  });

  it("details show only shared_with_groups the caller can see, runners_token only to Owners, members/all only what they may read", async () => {
    const problems = (await inBatches(listCallers(w), 3, (c) => detailProblems(w, c))).flat();
    expect(problems).toEqual([]);
  });

  it("GET /namespaces holds the caller's own namespace and direct memberships (administrators: all)", async () => {
    const problems = (await inBatches(listCallers(w), 4, (c) => namespaceProblems(w, c))).flat();
    expect(problems).toEqual([]);
  });

  it("a group's avatar_url answers anonymous web visitors only for public groups (one 404 for the rest)", async () => {
    for (const g of targetsOf(w)) {
      const res = await w.stack.gw.get(`/api/v4/groups/${g.id}`, { token: w.rootToken });
      const url = new URL((res.body as { avatar_url: string }).avatar_url);
      const got = await fetch(w.stack.gw.base + url.pathname);
      expect({ group: g.label, status: got.status }).toEqual({
        group: g.label,
        status: g.visibility === "public" ? 200 : 404,
      });
    }
  });

  it("a blocked user's token is refused on every list", async () => {
    for (const path of ["/groups", "/namespaces", `/groups/${w.families.private.root.id}/subgroups`])
      expect((await w.stack.gw.get(`/api/v4${path}`, { token: w.blocked.token })).status).toBe(403);
  });
});

describe("read endpoints", () => {
  it.each([...READ_ENDPOINTS, ...HOOK_READ_ENDPOINTS].map((r) => [r.name, r] as const))(
    "%s",
    async (_name, rule) => {
      const cases = targetsOf(w).flatMap((g) => callersOf(w, g).map((c) => ({ g, c })));
      const outcomes = await inBatches(cases, 6, ({ g, c }) => run(rule, g, c));
      expect(outcomes.map((o) => o.problem).filter(Boolean)).toEqual([]);
    },
  );
});

describe("write endpoints (refusals change nothing, successes are undone)", () => {
  it.each([...WRITE_ENDPOINTS, ...HOOK_WRITE_ENDPOINTS].map((r) => [r.name, r] as const))(
    "%s",
    async (_name, rule) => {
      // One family (a root and its subgroup) at a time each, the three at once: a family's cases
      // touch each other (a member's level on the root bounds theirs on the subgroup), families never.
      const problems = await Promise.all(
        VISIBILITIES.map(async (v) => {
          const found: string[] = [];
          for (const g of [w.families[v].root, w.families[v].sub]) found.push(...(await writeCases(rule, g)));
          return found;
        }),
      );
      expect(problems.flat()).toEqual([]);
    },
  );
});

/** Every caller's write on `g`, one after the other, with root's view of `g` compared after each. */
async function writeCases(rule: EndpointRule, g: WGroup): Promise<string[]> {
  const problems: string[] = [];
  const watch = rule.watch ?? "detail";
  const before = await snapshot(g, watch);
  for (const c of callersOf(w, g)) {
    const outcome = await run(rule, g, c);
    if (outcome.problem) problems.push(outcome.problem);
    const succeeded = outcome.status >= 200 && outcome.status < 300;
    if (succeeded && rule.undo) await rule.undo(w, g, outcome.body);
    if ((await snapshot(g, watch)) !== before) {
      problems.push(`${rule.name} on ${g.label} as ${c.label} (${outcome.status}) left it changed`);
      break;
    }
  }
  return problems;
}
