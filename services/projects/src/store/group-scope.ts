import { UTC_TODAY, type Where } from "@canopy/kit";
import { reachesSql } from "./access";

/**
 * The conditions GET /groups/:id/projects and /projects/shared add to a project list (GitLab's
 * GroupProjectsFinder and the filters lib/api/groups.rb applies after it). Each is one indexed test:
 * the group's own projects by namespace_id, its subtree's by `traversal_ids @> ARRAY[G]` (GIN), the
 * projects shared to it by an id array from project_group_links (a bitmap OR with either).
 */
export interface GroupScope {
  groupId: number;
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
  const group = w.param(s.groupId);
  const shared = `p.id = ANY(ARRAY(SELECT l.project_id FROM project_group_links l
    WHERE l.group_id = ${group} AND (l.expires_at IS NULL OR l.expires_at > ${UTC_TODAY})))`;
  const own = s.includeSubgroups ? `p.traversal_ids @> ARRAY[${group}::bigint]` : `p.namespace_id = ${group}`;
  if (s.sharedOnly) w.and(shared);
  else w.and(s.withShared ? `${own} OR ${shared}` : own);
  if (s.withIssuesEnabled) w.and(featureAvailable("issues", 10, caller));
  // GitLab's with_merge_requests_enabled: the feature is not disabled (whoever asks).
  if (s.withMergeRequestsEnabled) w.and(`${featureLevel("merge_requests")} > 0`);
  if (s.none) w.and("false");
}
