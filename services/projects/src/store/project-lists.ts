import { createHash } from "node:crypto";
import { containsPattern, COUNT_CAP, countKey, type Queryable, type SearchTerms, Where } from "@canopy/kit";
import { isTimeColumn, type ListOrder } from "../domain/list-order";
import { accessLevelSql, authorizationCtes, reachesSql } from "./access";
import { addGroupScope, type GroupScope } from "./group-scope";
import { countAndKeep, keptCountColumn } from "./list-counts";
import { PROJECT_COLUMNS, PROJECT_JOINS, type ProjectRow } from "./projects";
import { visibleWalksFrom } from "./visible-walks";

/**
 * One list of projects: which the caller may see, filtered and ordered. The visibility rule is
 * GitLab's `public_or_visible_to_user`: administrators see all; anyone else what is visible at
 * their level (`lowest`) or what they have access to (store/access.ts). Projects below a namespace
 * marked for deletion are left out of every list.
 */
export interface ProjectListQuery {
  /** 0 for anonymous callers. */
  userId: number;
  admin: boolean;
  /** The lowest visibility level the caller sees without access. */
  lowest: number;
  /** Only the projects of this personal namespace (GET /users/:id/projects). */
  namespaceId?: number;
  search?: SearchTerms;
  owned: boolean;
  membership: boolean;
  starred: boolean;
  visibility?: number;
  archived?: boolean;
  minAccessLevel: number;
  /** Topic names (GitLab's `topic`), every one required, case-insensitively. */
  topics?: string[];
  order: ListOrder;
  /** `custom_attributes[key]=value` (administrators only): every pair must match. */
  customAttributes?: { key: string; value: string }[];
  /** GET /groups/:id/projects and /projects/shared (store/group-scope.ts). */
  group?: GroupScope;
  /**
   * order_by=similarity with a search (GitLab's sorted_by_similarity_desc): score desc, id desc.
   * `trigram` is pg_trgm's similarity() when installed, else the documented approximation.
   */
  similarity?: { query: string; trigram: string | undefined };
  /** A namespace restored a moment ago whose mark this service may still hold: it hides nothing. */
  restoredNamespaceId?: number;
}

export type ListedProject = ProjectRow & {
  caller_access: number;
  caller_starred: boolean;
  /** The order's key as text (timestamps with their microseconds), for the next cursor. */
  sort_key: string;
  /** The list's kept count when asked for and still valid (store/list-counts.ts), else null. */
  kept_count: number | null;
};

function build(q: ProjectListQuery) {
  const w = new Where();
  let userParam: string | undefined;
  // Bound only when used: an unused parameter has no type PostgreSQL can infer.
  const user = () => (userParam ??= w.param(q.userId));
  const signedIn = q.userId > 0;
  if (!q.admin) {
    const lowest = w.param(q.lowest);
    w.and(
      signedIn ? `p.visibility_level >= ${lowest} OR ${reachesSql("p")}` : `p.visibility_level >= ${lowest}`,
    );
  }
  const restored = q.restoredNamespaceId ? ` AND m.id <> ${w.param(q.restoredNamespaceId)}` : "";
  w.and(
    `NOT EXISTS (SELECT 1 FROM namespaces m WHERE m.marked_for_deletion_on IS NOT NULL AND m.id = ANY(p.traversal_ids)${restored})`,
  );
  if (q.namespaceId !== undefined) w.and(`p.namespace_id = ${w.param(q.namespaceId)}`);
  if (q.group) addGroupScope(w, q.group, { signedIn, admin: q.admin });
  if (q.owned)
    w.and(
      signedIn
        ? `${reachesSql("p", "50")} OR p.namespace_id IN (SELECT o.id FROM namespaces o WHERE o.owner_id = ${user()} AND o.kind = 'user')`
        : "false",
    );
  if (q.membership) w.and(signedIn ? reachesSql("p") : "false");
  if (q.minAccessLevel) w.and(signedIn ? reachesSql("p", w.param(q.minAccessLevel)) : "false");
  if (q.starred)
    w.and(
      signedIn
        ? `EXISTS (SELECT 1 FROM stars s WHERE s.project_id = p.id AND s.user_id = ${user()})`
        : "false",
    );
  if (q.visibility !== undefined) w.and(`p.visibility_level = ${w.param(q.visibility)}`);
  if (q.archived !== undefined) w.and(`p.archived = ${w.param(q.archived)}`);
  if (q.topics?.length)
    w.and(
      `(SELECT array_agg(lower(t)) FROM unnest(p.topics) t) @> ${w.param(q.topics.map((t) => t.toLowerCase()))}::text[]`,
    );
  for (const { key, value } of q.customAttributes ?? [])
    w.and(`EXISTS (SELECT 1 FROM project_custom_attributes c
                    WHERE c.project_id = p.id AND c.key = ${w.param(key)} AND c.value = ${w.param(value)})`);
  if (q.search?.exact !== undefined) {
    const exact = w.param(q.search.exact);
    w.and(
      `lower(p.path) = lower(${exact}) OR lower(p.name) = lower(${exact}) OR lower(p.description) = lower(${exact})`,
    );
  } else if (q.search?.words) {
    const words = q.search.words.map((word) => w.param(containsPattern(word)));
    const all = (column: string) => words.map((x) => `${column} ILIKE ${x}`).join(" AND ");
    w.and(`(${all("p.path")}) OR (${all("p.name")}) OR (${all("COALESCE(p.description, '')")})`);
  }
  const cteList = signedIn ? [authorizationCtes(user())] : [];
  const ctes = cteList.length ? `WITH ${cteList.join(",\n")}` : "";
  return { w, cteList, ctes, user };
}

/**
 * The conditions on `p` (and the CTEs they need) that say which projects a caller sees in every
 * project list, for lists of things held in projects (store/events.ts). `membership` keeps only the
 * projects the caller has access to (GitLab's authorized_projects).
 */
export function visibleProjectsWhere(viewer: {
  userId: number;
  admin: boolean;
  lowest: number;
  membership: boolean;
}): { w: Where; ctes: string } {
  const { w, ctes } = build({
    ...viewer,
    owned: false,
    starred: false,
    minAccessLevel: 0,
    order: { tag: "id:desc", column: "id", desc: true },
  });
  return { w, ctes };
}

const keyExpr = (order: ListOrder) => `p.${order.column}`;

/**
 * GitLab's similarity score of projects: similarity() of the search with path ×1, name ×0.7 and
 * description ×0.2. Without pg_trgm, the same shape approximated: a column containing the query
 * scores the query's share of its length (1.0 for an exact match), others 0.
 */
function scoreSql(w: Where, s: NonNullable<ProjectListQuery["similarity"]>): string {
  const q = w.param(s.query);
  const one = (col: string) =>
    s.trigram
      ? `${s.trigram}(COALESCE(${col}, ''), ${q}::text)::float8`
      : `(CASE WHEN strpos(lower(COALESCE(${col}, '')), lower(${q}::text)) > 0
           THEN length(${q}::text)::float8 / greatest(length(${col}), 1) ELSE 0 END)::float8`;
  return `(${one("p.path")} + ${one("p.name")} * 0.7::float8 + ${one("p.description")} * 0.2::float8)`;
}
const keyType = (order: ListOrder) =>
  isTimeColumn(order.column)
    ? "timestamptz"
    : order.column === "name" || order.column === "path"
      ? "text"
      : "bigint";

/**
 * One page: offset (`offset`) or after a keyset position (`after`: key value and id); with
 * `keptCount`, each row also carries the list's kept count (a page and its X-Total in one round trip).
 */
export async function listProjects(
  db: Queryable,
  q: ProjectListQuery,
  window: { limit: number; offset: number; after?: [string | number, number]; keptCount?: boolean },
): Promise<ListedProject[]> {
  const { w, ctes, user } = build(q);
  const dir = q.order.desc ? "DESC" : "ASC";
  const tieDir = (q.order.tieDesc ?? q.order.desc) ? "DESC" : "ASC";
  const orderBy = q.similarity
    ? `${scoreSql(w, q.similarity)} DESC, p.id DESC`
    : `${keyExpr(q.order)} ${dir}, p.id ${tieDir}`;
  if (window.after) {
    const cmp = q.order.desc ? "<" : ">";
    w.and(
      `(${keyExpr(q.order)}, p.id) ${cmp} (${w.param(window.after[0])}::${keyType(q.order)}, ${w.param(window.after[1])}::bigint)`,
    );
  }
  const signedIn = q.userId > 0;
  // The page's ids first, the rows and each one's access level after, for those rows only: a page
  // sorted from a group's 10,000 projects otherwise worked out all 10,000 levels (42 ms, not 8).
  const offset = Number(window.after ? 0 : window.offset);
  const walks = visibleWalksFrom(q, w, q.order, window, orderBy);
  const page =
    walks ??
    `(SELECT p.id FROM projects p ${w.sql} ORDER BY ${orderBy} LIMIT ${Number(window.limit)} OFFSET ${offset}) page`;
  const kept = window.keptCount ? keptCountColumn(w, countKeyOf(q)) : "NULL::int";
  const text = `${ctes}
     SELECT ${PROJECT_COLUMNS}, ${kept} AS kept_count,
            ${keyExpr(q.order)}::text AS sort_key,
            ${signedIn ? accessLevelSql("p") : "0"}::int AS caller_access,
            ${signedIn ? `EXISTS (SELECT 1 FROM stars s WHERE s.project_id = p.id AND s.user_id = ${user()})` : "false"} AS caller_starred
       FROM ${page} JOIN projects p ON p.id = page.id ${PROJECT_JOINS}
      ORDER BY ${orderBy}
      LIMIT ${Number(window.limit)} OFFSET ${walks ? offset : 0}`;
  // Literals, not parameters: a generic plan does not know them and may sort the whole set. Deep
  // offsets (rarely asked twice) stay unprepared, and so do a group's lists: a group holds one
  // project or ten thousand, and the generic plan PostgreSQL switches to after five runs guesses the
  // average, sorting a big subtree whole (94 ms against 0.4 ms at 10,000 projects; planning anew
  // costs 3-4 ms).
  const unprepared = q.group !== undefined || (!window.after && window.offset > DEEPEST_PREPARED_OFFSET);
  const named = unprepared ? {} : preparedName(text);
  const { rows } = await db.query<ListedProject>({ ...named, text, values: w.params });
  return rows;
}

/**
 * A prepared statement's name for the common list shapes, so PostgreSQL plans each shape once per
 * connection rather than on every request (planning the access CTEs costs as much as running them:
 * 7 ms against 5 ms at 100k projects). Texts that vary without bound (a search of many words, many
 * custom attributes) stay unnamed.
 */
const DEEPEST_PREPARED_OFFSET = 500;

function preparedName(text: string): { name?: string } {
  if (text.length > 12_000) return {};
  return { name: `projects-list-${createHash("sha1").update(text).digest("base64url").slice(0, 20)}` };
}

/** What decides which rows a list holds (everything but its order), and whose rows count. */
function countKeyOf(q: ProjectListQuery) {
  const { order: _order, ...filters } = q;
  return countKey(filters, q.userId);
}

/**
 * How many projects the list holds, counting no further than the cap (GitLab omits X-Total past
 * it): the kept count when listProjects brought a valid one, else a count that is then kept.
 */
export async function countProjects(
  db: Queryable,
  q: ProjectListQuery,
  /** What listProjects' kept_count said: a count, or null / undefined (none valid, or not asked). */
  kept?: number | null,
): Promise<number> {
  if (typeof kept === "number") return kept;
  const { w, cteList } = build(q);
  const expression = `(SELECT count(*) FROM (SELECT 1 FROM projects p ${w.sql}
                        LIMIT ${COUNT_CAP + 1}) capped)`;
  return countAndKeep(db, countKeyOf(q), { w, ctes: cteList, expression });
}
