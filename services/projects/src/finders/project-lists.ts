import {
  ACCESS_LEVELS,
  badParameter,
  isVisibilityName,
  lowestVisibleLevel,
  notFound,
  pageInfo,
  pageWindow,
  searchTerms,
  trigramSimilarityFunction,
  visibilityLevelOf,
} from "@canopy/kit";
import type { common, projects } from "@canopy/protos";
import { decodeCursor, encodeCursor, isNumericColumn, listOrder, type ListOrder } from "../domain/list-order";
import type { Deps } from "../deps";
import { customAttributesOf } from "../store/custom-attributes";
import { countProjects, listProjects, type ProjectListQuery } from "../store/project-lists";
import { findUserNamespace } from "../store/namespaces";
import { findUser, findUserByUsername } from "../store/users";
import { toProject } from "./project-view";
import { viewerOf } from "./projects";

/**
 * GET /projects and GET /users/:id/projects (GitLab's ProjectsFinder): every project the caller may
 * see, or one user's personal projects, with the common filters, offset or keyset pages.
 */
export async function listProjectsFinder(
  deps: Deps,
  req: projects.ListProjectsRequest,
): Promise<projects.ListProjectsResponse> {
  const viewer = viewerOf(req.actor);
  if (req.minAccessLevel && !(ACCESS_LEVELS as readonly number[]).includes(req.minAccessLevel))
    throw badParameter("min_access_level does not have a valid value");
  if (req.orderBy === "similarity" && req.page?.keyset)
    throw badParameter("Keyset pagination is not yet available for this type of request");
  const query: ProjectListQuery = {
    userId: viewer.userId,
    admin: viewer.admin,
    lowest: lowestVisibleLevel(viewer),
    namespaceId:
      req.userId || req.username ? await personalNamespaceOf(deps, req.userId, req.username) : undefined,
    search: searchTerms(req.search),
    owned: req.owned,
    membership: req.membership,
    starred: req.starred,
    visibility:
      req.visibility && isVisibilityName(req.visibility) ? visibilityLevelOf(req.visibility) : undefined,
    archived: req.archived,
    minAccessLevel: req.minAccessLevel,
    topics: topicsOf(req.topics),
    ...(await orderOf(deps, req.orderBy, req.sort, req.search)),
    // GitLab ignores both for everyone but administrators.
    customAttributes: viewer.admin
      ? Object.entries(req.customAttributes).map(([key, value]) => ({ key, value }))
      : undefined,
  };
  return pageOfProjects(deps, query, req.page, viewer.admin && req.withCustomAttributes);
}

/** GitLab's `topic` parameter: comma-separated names, blanks dropped. */
export const topicsOf = (topics: string[]) => topics.map((t) => t.trim()).filter(Boolean);

/**
 * A list's order: a column's, or `similarity` (GitLab's sorted_by_similarity_desc): with a search,
 * the score of path, name and description, then id desc, whatever `sort` says; without one, name
 * ascending with the id in `sort`'s direction.
 */
export async function orderOf(
  deps: Deps,
  orderBy: string,
  sort: string,
  search: string,
): Promise<Pick<ProjectListQuery, "order" | "similarity">> {
  if (orderBy !== "similarity") return { order: listOrder(orderBy, sort) };
  const order: ListOrder = {
    tag: `similarity:${sort === "asc" ? "asc" : "desc"}`,
    column: "name",
    desc: false,
    tieDesc: sort !== "asc",
  };
  const query = search.trim();
  return {
    order,
    similarity: query ? { query, trigram: await trigramSimilarityFunction(deps.pool) } : undefined,
  };
}

/** One page of a project list: keyset after `page.cursor`, or offset with its (capped) count. */
export async function pageOfProjects(
  deps: Deps,
  query: ProjectListQuery,
  pageRequest: common.PageRequest | undefined,
  withAttributes = false,
): Promise<projects.ListProjectsResponse> {
  const order = query.order;
  const window = pageWindow(pageRequest);
  if (pageRequest?.keyset) {
    const after = pageRequest.cursor ? decodeCursor(order, pageRequest.cursor) : undefined;
    if (pageRequest.cursor && !after) throw badParameter("cursor is invalid");
    const rows = await listProjects(deps.pool, query, { limit: window.perPage + 1, offset: 0, after });
    const page = rows.slice(0, window.perPage);
    const last = page.at(-1);
    const nextCursor =
      rows.length > window.perPage && last
        ? encodeCursor(order, isNumericColumn(order.column) ? Number(last.sort_key) : last.sort_key, last.id)
        : "";
    return {
      projects: await withCustomAttributes(deps, page.map(view), withAttributes),
      page: { page: 1, perPage: window.perPage, total: 0, totalCapped: true, nextCursor },
    };
  }
  const rows = await listProjects(deps.pool, query, { ...window, keptCount: true });
  // A page that is not full tells the total, unless it is empty past the first page.
  const known = rows.length < window.perPage && (rows.length > 0 || window.offset === 0);
  const counted = known
    ? window.offset + rows.length
    : await countProjects(deps.pool, query, rows[0]?.kept_count);
  return {
    projects: await withCustomAttributes(deps, rows.map(view), withAttributes),
    page: pageInfo(window, counted),
  };
}

/** `with_custom_attributes=true` (administrators): each project's attributes, in one query. */
export async function withCustomAttributes(
  deps: Deps,
  list: projects.Project[],
  wanted: boolean,
): Promise<projects.Project[]> {
  if (!wanted || !list.length) return list;
  const byProject = await customAttributesOf(
    deps.pool,
    list.map((p) => p.id),
  );
  return list.map((p) => ({ ...p, customAttributes: { values: byProject.get(p.id) ?? {} } }));
}

export const view = (row: Awaited<ReturnType<typeof listProjects>>[number]) =>
  toProject(row, {
    access_level: row.caller_access,
    project_access_level: 0,
    group_access_level: 0,
    starred: row.caller_starred,
  });

/** The personal namespace of GET /users/:id/projects' user: 404 "User Not Found" when unknown. */
async function personalNamespaceOf(deps: Deps, userId: number, username: string): Promise<number> {
  const user = userId ? await findUser(deps.pool, userId) : await findUserByUsername(deps.pool, username);
  if (!user) throw notFound("User");
  const namespace = await findUserNamespace(deps.pool, user.id);
  // A user whose namespace has not reached this service yet has no projects here either.
  return namespace?.id ?? -1;
}
