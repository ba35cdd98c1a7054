import { UTC_TODAY, type Queryable, type Where } from "@canopy/kit";
import { reachesSql } from "./access";

/**
 * The conditions GET /groups/:id/projects and /projects/shared add to a project list (GitLab's
 * GroupProjectsFinder and the filters lib/api/groups.rb applies after it). Each is one indexed test
 * that keeps the list's cost to the group's own projects, never the table's:
 * - a root's subtree is `traversal_ids[1] = root`, walked in the list's order by the (root, order)
 *   indexes of migration 0009 (so a page stops after its rows); a subgroup's is that root's rows
 *   with `traversal_ids @> ARRAY[G]` (the GIN index), at most the subtree to sort;
 * - the group's own projects by namespace_id;
 * - the projects shared to it by their ids, looked up before the statement (groupScopeOf): an
 *   `OR` with a subquery in it made PostgreSQL walk the whole table's order index instead (1.5 s
 *   at a million projects when the subtree's were the oldest).
 */
export interface GroupScope {
  groupId: number;
  /** The group's root (traversal_ids[1]); the group itself when top-level. */
  rootId: number;
  /** The projects shared to the group, unexpired (groupScopeOf). */
  sharedIds: number[];
  /** Only the projects shared to the group (not its own). */
  sharedOnly: boolean;
  /** Also the projects shared to the group (never to its subgroups). */
  withShared: boolean;
  includeSubgroups: boolean;
  withIssuesEnabled: boolean;
  withMergeRequestsEnabled: boolean;
  /** with_security_reports on ultimate: no project has security reports (no pipelines run here). */
  none: boolean;
}

/** A feature's stored access level (absent: enabled, 20), as SQL. */
const featureLevel = (feature: string) => `COALESCE((p.access_levels->>'${feature}')::int, 20)`;

/**
 * GitLab's with_feature_available_for_user: administrators any level but disabled; others enabled
 * or public, or private when their project access reaches the feature's minimum (Guest for issues).
 */
function featureAvailable(feature: string, minAccess: number, caller: { signedIn: boolean; admin: boolean }) {
  const level = featureLevel(feature);
  if (caller.admin) return `${level} > 0`;
  if (!caller.signedIn) return `${level} >= 20`;
  return `${level} >= 20 OR (${level} = 10 AND ${reachesSql("p", String(minAccess))})`;
}

export function addGroupScope(w: Where, s: GroupScope, caller: { signedIn: boolean; admin: boolean }): void {
  // Bound only when used: an unused parameter has no type PostgreSQL can infer.
  const own = () => {
    const group = w.param(s.groupId);
    if (!s.includeSubgroups) return `p.namespace_id = ${group}`;
    if (s.rootId === s.groupId) return `p.traversal_ids[1] = ${group}::bigint`;
    return `p.traversal_ids[1] = ${w.param(s.rootId)}::bigint AND p.traversal_ids @> ARRAY[${group}::bigint]`;
  };
  const shared = () => (s.sharedIds.length ? `p.id = ANY(${w.param(s.sharedIds)}::bigint[])` : "false");
  if (s.sharedOnly) w.and(shared());
  else w.and(s.withShared && s.sharedIds.length ? `${own()} OR ${shared()}` : own());
  if (s.withIssuesEnabled) w.and(featureAvailable("issues", 10, caller));
  // GitLab's with_merge_requests_enabled: the feature is not disabled (whoever asks).
  if (s.withMergeRequestsEnabled) w.and(`${featureLevel("merge_requests")} > 0`);
  if (s.none) w.and("false");
}

/** What a group scope needs to know of the group before its statement: its root and shares. */
export async function groupScopeOf(
  db: Queryable,
  groupId: number,
): Promise<Pick<GroupScope, "rootId" | "sharedIds">> {
  const { rows } = await db.query<{ root_id: string | null; shared_ids: string[] }>({
    name: "projects-group-scope-of",
    text: `SELECT (SELECT n.traversal_ids[1] FROM namespaces n WHERE n.id = $1) AS root_id,
                  ARRAY(SELECT l.project_id FROM project_group_links l
                         WHERE l.group_id = $1 AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})
                         ORDER BY l.project_id) AS shared_ids`,
    values: [groupId],
  });
  const row = rows[0]!;
  return {
    rootId: row.root_id === null ? groupId : Number(row.root_id),
    sharedIds: row.shared_ids.map(Number),
  };
}
