import {
  ACCESS_LEVELS,
  badParameter,
  isVisibilityName,
  lowestVisibleLevel,
  searchTerms,
  visibilityLevelOf,
} from "@canopy/kit";
import type { groupProjects, projects } from "@canopy/protos";
import { listOrder } from "../domain/list-order";
import type { Deps } from "../deps";
import { groupScopeOf, type GroupScope } from "../store/group-scope";
import { listProjects, type ProjectListQuery } from "../store/project-lists";
import { orderOf, pageOfProjects, topicsOf, view } from "./project-lists";
import { viewerOf } from "./projects";

/**
 * GET /groups/:id/projects and /groups/:id/projects/shared (GitLab's GroupProjectsFinder and the
 * filters lib/api/groups.rb adds), and the projects of the group detail. The gateway has resolved
 * the group through the groups service (404 when the caller cannot see it); a group whose copy has
 * not reached this service yet holds no projects here either.
 */
export async function listGroupProjects(
  deps: Deps,
  req: groupProjects.ListGroupProjectsRequest,
): Promise<projects.ListProjectsResponse> {
  const viewer = viewerOf(req.actor);
  if (req.minAccessLevel && !(ACCESS_LEVELS as readonly number[]).includes(req.minAccessLevel))
    throw badParameter("min_access_level does not have a valid value");
  const query: ProjectListQuery = {
    userId: viewer.userId,
    admin: viewer.admin,
    lowest: lowestVisibleLevel(viewer),
    search: searchTerms(req.search),
    owned: req.owned,
    membership: false,
    starred: req.starred,
    visibility:
      req.visibility && isVisibilityName(req.visibility) ? visibilityLevelOf(req.visibility) : undefined,
    archived: req.archived,
    minAccessLevel: req.minAccessLevel,
    topics: topicsOf(req.topics),
    ...(await orderOf(deps, req.orderBy, req.sort, req.search)),
    group: {
      groupId: req.groupId,
      ...(await groupScopeOf(deps.pool, req.groupId)),
      sharedOnly: req.sharedOnly,
      withShared: req.withShared,
      includeSubgroups: req.includeSubgroups,
      withIssuesEnabled: req.withIssuesEnabled,
      withMergeRequestsEnabled: req.withMergeRequestsEnabled,
      none: req.withSecurityReports,
    },
    // GitLab ignores both for everyone but administrators.
    customAttributes: viewer.admin
      ? Object.entries(req.customAttributes).map(([key, value]) => ({ key, value }))
      : undefined,
  };
  if (req.orderBy === "similarity" && req.page?.keyset)
    throw badParameter("Keyset pagination is not yet available for this type of request");
  return pageOfProjects(deps, query, req.page, viewer.admin && req.withCustomAttributes);
}

/** At most this many projects and shared projects in the group detail (GitLab 12.6+). */
export const DETAIL_PROJECTS_LIMIT = 100;

/** The group detail's `projects` (directly in the group) and `shared_projects`, newest first. */
export async function groupDetailProjects(
  deps: Deps,
  req: groupProjects.GroupDetailProjectsRequest,
): Promise<groupProjects.GroupDetailProjectsResponse> {
  const viewer = viewerOf(req.actor);
  const facts = await groupScopeOf(deps.pool, req.groupId);
  const base = (scope: Partial<GroupScope>): ProjectListQuery => ({
    userId: viewer.userId,
    admin: viewer.admin,
    lowest: lowestVisibleLevel(viewer),
    owned: false,
    membership: false,
    starred: false,
    minAccessLevel: 0,
    order: listOrder("id", "desc"),
    restoredNamespaceId: req.restored ? req.groupId : undefined,
    group: {
      groupId: req.groupId,
      ...facts,
      sharedOnly: false,
      withShared: false,
      includeSubgroups: false,
      withIssuesEnabled: false,
      withMergeRequestsEnabled: false,
      none: false,
      ...scope,
    },
  });
  const window = { limit: DETAIL_PROJECTS_LIMIT, offset: 0 };
  // Most groups have no project shared to them: no statement (and no plan) for an empty list.
  const [own, shared] = await Promise.all([
    listProjects(deps.pool, base({}), window),
    facts.sharedIds.length ? listProjects(deps.pool, base({ sharedOnly: true }), window) : [],
  ]);
  return { projects: own.map(view), sharedProjects: shared.map(view) };
}
