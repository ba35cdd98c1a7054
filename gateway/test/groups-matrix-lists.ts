/**
 * What each caller's lists may hold, against the model: GET /groups (with and without
 * all_available), subgroups and descendant_groups of every group they can read, members/all,
 * shared_with_groups and runners_token in a group's detail, and GET /namespaces. Each list must be
 * exactly the model's set, and X-Total must count exactly those rows: nothing invisible in a page
 * nor in a count. Returns one line per difference.
 */
import {
  accessOf,
  allMembersOf,
  byId,
  isDescendantOrSelf,
  listedOf,
  minAccessOf,
  ownedOf,
  namespacesOf,
  readable,
  readsMembers,
  OWNER,
} from "./groups-matrix-model";
import { inBatches, type Caller, type WGroup, type World } from "./groups-matrix-world";

interface Row {
  id: number;
  kind?: string;
  [k: string]: unknown;
}

const label = (w: World, ids: Iterable<number>) =>
  [...ids]
    .map((id) => byId(w, id)?.label ?? `#${id}`)
    .sort()
    .join(", ");

async function fetchList(w: World, c: Caller, path: string, perPage = 100) {
  const sep = path.includes("?") ? "&" : "?";
  const res = await w.stack.gw.get(`/api/v4${path}${sep}per_page=${perPage}`, { token: c.token });
  return { res, rows: Array.isArray(res.body) ? (res.body as Row[]) : [] };
}

/** Compares a list's ids (and its X-Total) with the expected set; `known` limits to the world's rows. */
async function compareList(
  w: World,
  c: Caller,
  path: string,
  expected: Set<number>,
  problems: string[],
  idOf: (r: Row) => number | undefined = (r) => r.id,
  named: (ids: Iterable<number>) => string = (ids) => label(w, ids),
) {
  const { res, rows } = await fetchList(w, c, path);
  const where = `${c.label}: GET ${path}`;
  if (res.status !== 200) return void problems.push(`${where}: ${res.status} ${res.text}`);
  const got = new Set(rows.map(idOf).filter((id): id is number => id !== undefined));
  const extra = [...got].filter((id) => !expected.has(id));
  const missing = [...expected].filter((id) => !got.has(id));
  if (extra.length) problems.push(`${where} lists what it should not: ${named(extra)}`);
  if (missing.length) problems.push(`${where} leaves out: ${named(missing)}`);
  const total = res.headers.get("x-total");
  if (total !== String(rows.length)) problems.push(`${where}: X-Total ${total} for ${rows.length} rows`);
  // A page that is not full gives its total without counting: a full one makes the count run.
  const one = (await fetchList(w, c, path, 1)).res;
  const counted = one.headers.get("x-total");
  if (counted !== String(expected.size))
    problems.push(
      `${where}&per_page=1: ${one.status}, X-Total ${counted}, expected ${expected.size} ${one.status === 200 ? "" : one.text}`,
    );
}

/** The callers whose lists are checked: everyone, each role user once (their memberships are what matter). */
export function listCallers(w: World): Caller[] {
  // Lists depend on memberships, not levels, except owned (50) and min_access_level=30 (20 | 30).
  const roles = Object.values(w.families).flatMap((f) =>
    [f.direct, f.onSub, f.shared].flatMap((byLevel) => [20, 30, 50].map((l) => byLevel[l]!)),
  );
  return [w.anonymous, w.nonMember, w.external, w.admin, w.bystander, ...roles];
}

export async function groupListProblems(w: World, c: Caller): Promise<string[]> {
  const problems: string[] = [];
  await compareList(w, c, "/groups", listedOf(w, c, false), problems);
  await compareList(w, c, "/groups?all_available=true", listedOf(w, c, true), problems);
  if (c.kind !== "anonymous") {
    await compareList(w, c, "/groups?owned=true", ownedOf(w, c), problems);
    await compareList(w, c, "/groups?min_access_level=30", minAccessOf(w, c, 30), problems);
  }
  // Filters and keys for administrators only are ignored for everyone else (§7.22): a filter that
  // would empty the list must not, and no row may carry statistics or custom attributes.
  const filtered = c.kind === "admin" ? new Set<number>() : listedOf(w, c, true);
  await compareList(w, c, "/groups?all_available=true&custom_attributes[tier]=none", filtered, problems);
  const { rows } = await fetchList(
    w,
    c,
    "/groups?all_available=true&statistics=true&with_custom_attributes=true",
  );
  for (const key of ["statistics", "custom_attributes"])
    if (rows.some((r) => key in r) !== (c.kind === "admin"))
      problems.push(`${c.label}: GET /groups ${c.kind === "admin" ? "without" : "with"} ${key}`);
  // top_level_only replaces the parent of /subgroups: no lookup, no 404, the caller's top level (§4.7).
  const roots = new Set(
    w.groups.filter((g) => !g.parentId && listedOf(w, c, false).has(g.id)).map((g) => g.id),
  );
  await compareList(
    w,
    c,
    `/groups/${w.families.private.root.id}/subgroups?top_level_only=true`,
    roots,
    problems,
  );
  const keyset = await keysetIds(w, c, "/groups?all_available=true&pagination=keyset&per_page=7");
  if (label(w, keyset) !== label(w, listedOf(w, c, true)))
    problems.push(`${c.label}: GET /groups?all_available=true by keyset: [${label(w, keyset)}]`);
  const parents = w.groups.filter((g) => readable(w, c, g) && w.groups.some((d) => d.parentId === g.id));
  for (const g of parents)
    for (const all of [false, true]) {
      const base = listedOf(w, c, all);
      const q = all ? "?all_available=true" : "";
      const children = w.groups.filter((d) => d.parentId === g.id && base.has(d.id)).map((d) => d.id);
      const below = w.groups
        .filter((d) => d.id !== g.id && isDescendantOrSelf(w, d, g) && base.has(d.id))
        .map((d) => d.id);
      await compareList(w, c, `/groups/${g.id}/subgroups${q}`, new Set(children), problems);
      await compareList(w, c, `/groups/${g.id}/descendant_groups${q}`, new Set(below), problems);
    }
  return problems;
}

/** Every id of a keyset-paginated list, following rel="next" to its end. */
async function keysetIds(w: World, c: Caller, path: string): Promise<number[]> {
  const ids: number[] = [];
  let url: string | undefined = `/api/v4${path}`;
  for (let page = 0; url && page < 50; page++) {
    const res = await w.stack.gw.get(url, { token: c.token });
    ids.push(...(res.body as Row[]).map((r) => r.id));
    const next = /<([^>]+)>; rel="next"/.exec(res.headers.get("link") ?? "")?.[1];
    url = next ? new URL(next).pathname + new URL(next).search : undefined;
  }
  return ids;
}

/** members/all, shared_with_groups and runners_token of every group the caller can read. */
export async function detailProblems(w: World, c: Caller): Promise<string[]> {
  const problems: string[] = [];
  const users = (ids: Iterable<number>) => [...ids].sort((a, b) => a - b).join(", ");
  await inBatches(
    w.groups.filter((g) => readable(w, c, g)),
    4,
    async (g: WGroup) => {
      const res = await w.stack.gw.get(`/api/v4/groups/${g.id}?with_custom_attributes=true`, {
        token: c.token,
      });
      const where = `${c.label}: GET /groups/${g.label}`;
      if (res.status !== 200) return void problems.push(`${where}: ${res.status}`);
      const body = res.body as { shared_with_groups: { group_id: number }[]; runners_token?: string };
      const shown = new Set(body.shared_with_groups.map((s) => s.group_id));
      const expected = new Set(
        w.links.filter((l) => l.sharedId === g.id && readable(w, c, byId(w, l.withId))).map((l) => l.withId),
      );
      if (label(w, shown) !== label(w, expected))
        problems.push(`${where}: shared_with_groups [${label(w, shown)}], expected [${label(w, expected)}]`);
      if ("custom_attributes" in body !== (c.kind === "admin"))
        problems.push(`${where}: custom_attributes ${c.kind === "admin" ? "missing" : "shown"}`);
      const owner = accessOf(w, c, g) >= OWNER;
      if (owner !== (body.runners_token !== undefined))
        problems.push(`${where}: runners_token ${owner ? "missing for an Owner" : "shown to a non-Owner"}`);
      if (c.kind === "anonymous" || !readsMembers(w, c, g)) return;
      await compareList(
        w,
        c,
        `/groups/${g.id}/members/all`,
        allMembersOf(w, c, g),
        problems,
        undefined,
        users,
      );
    },
  );
  return problems;
}

export async function namespaceProblems(w: World, c: Caller): Promise<string[]> {
  const problems: string[] = [];
  if (c.kind === "anonymous") return problems;
  const groupIds = new Set(w.groups.map((g) => g.id));
  const { res, rows } = await fetchList(w, c, "/namespaces");
  const where = `${c.label}: GET /namespaces`;
  if (res.status !== 200) return [`${where}: ${res.status}`];
  const got = new Set(rows.filter((r) => r.kind === "group").map((r) => r.id));
  const expected = namespacesOf(w, c);
  const extra = [...got].filter((id) => !expected.has(id) || !groupIds.has(id));
  const missing = [...expected].filter((id) => !got.has(id));
  if (extra.length) problems.push(`${where} lists what it should not: ${label(w, extra)}`);
  if (missing.length) problems.push(`${where} leaves out: ${label(w, missing)}`);
  const own = rows.filter((r) => r.kind === "user").length;
  if (c.kind !== "admin" && own !== 1) problems.push(`${where}: ${own} personal namespaces`);
  if (res.headers.get("x-total") !== String(rows.length))
    problems.push(`${where}: X-Total ${res.headers.get("x-total")} for ${rows.length} rows`);
  const counted = (await fetchList(w, c, "/namespaces", 1)).res.headers.get("x-total");
  if (counted !== String(rows.length))
    problems.push(`${where}?per_page=1: X-Total ${counted} for ${rows.length}`);
  return problems;
}
