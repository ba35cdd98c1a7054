import type { Where } from "@canopy/kit";
import type { ListOrder } from "../domain/list-order";
import type { ProjectListQuery } from "./project-lists";

/** The visibility levels a caller may see without access, each walked on its own (migration 0010). */
const WALKED_LEVELS = [20, 10];

/** Offsets past this walk the one index as before: every walk below would read this far. */
const DEEPEST_WALKED_OFFSET = 500;

/**
 * GET /projects for a signed-in user who is not an administrator, ordered by created_at or id: the
 * candidates of the page, as a FROM item (`page` with one `id` column), or undefined when the list
 * is not of that shape.
 *
 * Walking one index in the list's order and keeping the rows the caller may see reads past every
 * row they may not: at a million projects whose newest 45,000 were private, 16 ms for 20 rows
 * (and 35 ms for a group owner). Instead each way of seeing a project is walked apart, each far
 * enough for the page, and only their union is sorted:
 *   - public, then internal (if the caller sees it): each level's own partial index, in order;
 *   - more private projects the caller has access to: per namespace they reach, that namespace's
 *     root index (projects_root_created_at / projects_root_id) limited to it, and the projects
 *     they reach one by one.
 * PostgreSQL does not pick those indexes by itself: with `visibility_level = 20` it still walks the
 * created_at index, which it believes as cheap.
 */
export function visibleWalksFrom(
  q: ProjectListQuery,
  w: Where,
  order: ListOrder,
  window: { limit: number; offset: number; after?: unknown },
  orderBy: string,
): string | undefined {
  const walkable =
    q.userId > 0 &&
    !q.admin &&
    !q.group &&
    q.namespaceId === undefined &&
    !q.similarity &&
    (order.column === "created_at" || order.column === "id") &&
    !q.owned &&
    !q.membership &&
    !q.minAccessLevel &&
    !q.starred &&
    q.visibility === undefined &&
    (window.after !== undefined || window.offset <= DEEPEST_WALKED_OFFSET);
  if (!walkable) return undefined;
  const enough = Number(window.limit) + Number(window.after ? 0 : window.offset);
  const walk = (from: string, condition: string) =>
    `(SELECT p.id FROM ${from} ${w.sql} AND ${condition} ORDER BY ${orderBy} LIMIT ${enough})`;
  const lowest = Number(q.lowest);
  const byLevel = WALKED_LEVELS.filter((level) => level >= lowest).map((level) =>
    walk("projects p", `p.visibility_level = ${level}`),
  );
  const reachedBelow = `p.visibility_level < ${lowest}`;
  const throughNamespaces = `(SELECT x.id FROM access_namespaces an JOIN namespaces ns ON ns.id = an.namespace_id
       CROSS JOIN LATERAL ${walk(
         "projects p",
         `p.traversal_ids[1] = ns.traversal_ids[1] AND p.traversal_ids @> ARRAY[an.namespace_id] AND ${reachedBelow}`,
       )} x)`;
  const throughProjects = `(SELECT p.id FROM access_projects ap JOIN projects p ON p.id = ap.project_id
       ${w.sql} AND ${reachedBelow})`;
  return `(SELECT DISTINCT id FROM (${[...byLevel, throughNamespaces, throughProjects].join(" UNION ALL ")}) c) page`;
}
