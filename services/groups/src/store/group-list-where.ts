import { escapeLike, type SearchTerms, UTC_TODAY, Where } from "@canopy/kit";
import type { ListOrder } from "../domain/list-order";
import { authorizedNamespacesSql, projectNamespacesSql } from "./access";

/*
 * Which rows a group list (GET /groups, /groups/:id/subgroups, /groups/:id/descendant_groups) holds,
 * as the WHERE of one statement; store/group-lists.ts orders, pages and counts them.
 *
 * Subtrees are ranges of traversal_ids: the descendants of a group with traversal T are the rows
 * with T < traversal_ids < T', T' being T with its last element plus one, one range scan of the
 * btree on traversal_ids; a root's descendants are also `traversal_ids[1] = root`, which the
 * (traversal_ids[1], name, id) index of 0006 answers in name order without sorting.
 *
 * The caller's readable groups (GitLab's authorized groups, their ancestors and their descendants)
 * are built from their few authorizations as an array of ids: ancestors by unnesting the authorized
 * rows' traversal_ids, descendants by one range scan per authorized row, and the namespaces of the
 * projects they see through the project with those namespaces' ancestors; the rows are then fetched
 * by primary key. Nothing is computed per listed row, so the page costs what the page and its order
 * cost, not what the table holds.
 */

/** Which groups the caller may have listed before any filter (GitLab's GroupsFinder, first match). */
export type BaseSet =
  | { kind: "all" }
  | { kind: "none" }
  /** Direct Owner memberships. */
  | { kind: "owned"; userId: number }
  /** Direct memberships at `level` or above, and every descendant of those groups. */
  | { kind: "minAccess"; userId: number; level: number }
  /**
   * Authorized groups with their ancestors and descendants (none for userId 0), and, when
   * `publicFrom` is set, every group of at least that visibility level.
   */
  | { kind: "readable"; userId: number; publicFrom?: number };

export type Scope =
  | { kind: "all" }
  | { kind: "topLevel" }
  | { kind: "children"; parentId: number }
  | { kind: "descendants"; traversal: number[] };

export interface GroupListQuery {
  base: BaseSet;
  scope: Scope;
  skipIds: number[];
  visibilityLevel?: number;
  customAttributes: { key: string; value: string }[];
  search?: SearchTerms;
  /** Match the search against full path and full name (GET /groups) rather than path and name. */
  searchFullPath: boolean;
  order: ListOrder;
  /** For the similarity order: the search and the function scoring it (trigramSimilarityFunction). */
  similarity?: { query: string; trigram: string | undefined };
}

/** `T'`: the traversal just after the subtree of `t` (its last element plus one), as SQL. */
const subtreeEnd = (t: string) => `(${t}[1:cardinality(${t}) - 1] || (${t}[cardinality(${t})] + 1))`;

/** Memberships `m` that count: an active user, not expired (as authorizedNamespacesSql). */
const ACTIVE_USER = "JOIN users u ON u.id = m.user_id AND u.state = 'active'";
const NOT_EXPIRED = `(m.expires_at IS NULL OR m.expires_at > ${UTC_TODAY})`;

/**
 * The score of the similarity order: pg_trgm's similarity() on path ×1.0 plus name ×0.7. Without
 * the extension, an approximation with the same shape: a column containing the query scores the
 * query's share of its length (1.0 for an exact match), others 0.
 */
function scoreSql(w: Where, s: NonNullable<GroupListQuery["similarity"]>): string {
  const q = w.param(s.query);
  const one = (col: string) =>
    s.trigram
      ? `${s.trigram}(COALESCE(${col}, ''), ${q}::text)::float8`
      : `(CASE WHEN strpos(lower(${col}), lower(${q}::text)) > 0
           THEN length(${q}::text)::float8 / greatest(length(${col}), 1) ELSE 0 END)::float8`;
  return `(${one("n.path")} + ${one("n.name")} * 0.7::float8)`;
}

/**
 * A part of a `readable` base set with a public part: only the groups of at least `publicFrom`
 * ("public"), or only the caller's own below it ("mine"). Disjoint, so their counts add up.
 */
export type Part = "public" | "mine" | undefined;

function baseSql(w: Where, base: BaseSet, part?: Part): { ctes: string[]; condition?: string } {
  switch (base.kind) {
    case "all":
      return { ctes: [] };
    case "none":
      return { ctes: [], condition: "false" };
    case "owned":
      return {
        ctes: [],
        condition: `n.id = ANY(ARRAY(SELECT m.namespace_id FROM members m ${ACTIVE_USER}
                      WHERE m.user_id = ${w.param(base.userId)} AND m.access_level = 50 AND ${NOT_EXPIRED}))`,
      };
    case "minAccess":
      return {
        ctes: [
          `min_roots AS (SELECT r.traversal_ids FROM members m ${ACTIVE_USER}
             JOIN namespaces r ON r.id = m.namespace_id
            WHERE m.user_id = ${w.param(base.userId)} AND m.access_level >= ${w.param(base.level)}
              AND ${NOT_EXPIRED})`,
        ],
        condition: `n.id = ANY(ARRAY(SELECT d.id FROM min_roots r JOIN namespaces d
                      ON d.traversal_ids >= r.traversal_ids AND d.traversal_ids < ${subtreeEnd("r.traversal_ids")}))`,
      };
    case "readable": {
      // A literal (a level from visibility.ts, never user input), so the planner can match the
      // partial index of public groups.
      const pub = base.publicFrom !== undefined ? `n.visibility_level >= ${Number(base.publicFrom)}` : "";
      if (part === "public") return { ctes: [], condition: pub };
      if (!base.userId) return { ctes: [], condition: pub || "false" };
      const ctes = [
        `authorized AS (${authorizedNamespacesSql(w.param(base.userId))})`,
        `auth_groups AS MATERIALIZED (SELECT DISTINCT g.id, g.traversal_ids
           FROM authorized a JOIN namespaces g ON g.id = a.namespace_id WHERE g.kind = 'group')`,
        // The namespaces of projects the caller sees through the project (has_projects): they
        // and their ancestors are listed, not their descendants (GitLab's authorized_groups).
        `project_groups AS MATERIALIZED (SELECT DISTINCT g.traversal_ids
           FROM (${projectNamespacesSql(w.param(base.userId))}) pn JOIN namespaces g ON g.id = pn.namespace_id)`,
        // UNION ALL: `= ANY` does not mind repeats, and UNION's hash table is sized by the planner's
        // estimate of the subtrees (a share of the whole table), which at a million groups costs
        // more to allocate than the few real rows cost to find.
        `visible AS (SELECT unnest(traversal_ids) AS id FROM auth_groups
           UNION ALL SELECT d.id FROM auth_groups g JOIN namespaces d
             ON d.traversal_ids > g.traversal_ids AND d.traversal_ids < ${subtreeEnd("g.traversal_ids")}
           UNION ALL SELECT unnest(traversal_ids) FROM project_groups)`,
      ];
      // An array, not IN (subquery): the planner cannot estimate the set (a few ids for most
      // callers) and would otherwise scan the table; an array makes it look the ids up.
      const mine = "n.id = ANY(ARRAY(SELECT id FROM visible))";
      if (part === "mine")
        return { ctes, condition: `n.visibility_level < ${Number(base.publicFrom)} AND ${mine}` };
      return { ctes, condition: pub ? `${pub} OR ${mine}` : mine };
    }
  }
}

function scopeSql(w: Where, scope: Scope): string | undefined {
  switch (scope.kind) {
    case "all":
      return undefined;
    case "topLevel":
      return "n.parent_id IS NULL";
    case "children":
      return `n.parent_id = ${w.param(scope.parentId)}`;
    case "descendants": {
      const t = scope.traversal;
      if (t.length === 1) {
        const root = w.param(t[0]);
        return `n.traversal_ids[1] = ${root}::bigint AND n.id <> ${root}::bigint`;
      }
      const end = [...t.slice(0, -1), t[t.length - 1]! + 1];
      return `n.traversal_ids > ${w.param(t)}::bigint[] AND n.traversal_ids < ${w.param(end)}::bigint[]`;
    }
  }
}

function searchSql(w: Where, terms: SearchTerms, fullPath: boolean): string {
  const columns = fullPath ? ["n.full_path", "n.full_name"] : ["n.path", "n.name"];
  if (terms.exact !== undefined) {
    const p = w.param(escapeLike(terms.exact));
    return columns.map((c) => `${c} ILIKE ${p}`).join(" OR ");
  }
  const patterns = terms.words.map((word) => w.param(`%${escapeLike(word)}%`));
  return columns.map((c) => `(${patterns.map((p) => `${c} ILIKE ${p}`).join(" AND ")})`).join(" OR ");
}

export interface GroupListWhere {
  w: Where;
  ctes: string[];
  /** `WITH ...` or "". */
  with: string;
  where: string;
  /** The similarity order's score as SQL, when the list is in that order. */
  score?: string;
}

/**
 * The WHERE of the list `q` (or of one `part` of it) and the CTEs it needs; `paramsOf`: number the
 * parameters on from another statement's (two parts in one statement).
 */
export function groupListWhere(q: GroupListQuery, part?: Part, paramsOf?: Where): GroupListWhere {
  const w = new Where();
  if (paramsOf) w.param = (value) => paramsOf.param(value);
  w.and("n.kind = 'group'");
  // A group being removed (free plan) is gone for every reader already (see commands/lifecycle).
  w.and("NOT n.pending_removal");
  const base = baseSql(w, q.base, part);
  if (base.condition) w.and(base.condition);
  const scope = scopeSql(w, q.scope);
  if (scope) w.and(scope);
  for (const { key, value } of q.customAttributes)
    w.and(`EXISTS (SELECT 1 FROM custom_attributes c
                    WHERE c.namespace_id = n.id AND c.key = ${w.param(key)} AND c.value = ${w.param(value)})`);
  if (q.skipIds.length) w.and(`n.id <> ALL(${w.param(q.skipIds)}::bigint[])`);
  if (q.visibilityLevel !== undefined) w.and(`n.visibility_level = ${w.param(q.visibilityLevel)}`);
  if (q.search) w.and(searchSql(w, q.search, q.searchFullPath));
  const score = q.similarity && q.order.keys[0]?.column === "score" ? scoreSql(w, q.similarity) : undefined;
  return {
    w,
    ctes: base.ctes,
    with: base.ctes.length ? `WITH ${base.ctes.join(",\n")}` : "",
    where: w.sql,
    score,
  };
}
