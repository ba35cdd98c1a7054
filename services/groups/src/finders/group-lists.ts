import {
  ACCESS_LEVELS,
  badParameter,
  isVisibilityName,
  lowestVisibleLevel,
  pageInfo,
  pageWindow,
  searchTerms,
  trigramSimilarityFunction,
  visibilityLevelOf,
  type VisibilityViewer,
} from "@canopy/kit";
import { groups } from "@canopy/protos";
import { decodeCursor, encodeCursor, listOrder, ORDER_BYS, type ListOrder } from "../domain/list-order";
import type { Deps } from "../deps";
import { statisticsOf } from "../store/projects";
import type { BaseSet, GroupListQuery, Scope } from "../store/group-list-where";
import { countGroupRows, customAttributesOf, listGroupRows, type ListedGroupRow } from "../store/group-lists";
import { callerAccess, resolveGroup } from "./groups";
import { toGroup } from "./group-view";

/**
 * GET /groups, /groups/:id/subgroups and /groups/:id/descendant_groups (GitLab's GroupsFinder with
 * lib/api/groups.rb around it): which groups the caller may have listed, then the filters, the order
 * and one page, by offset with a capped count or by keyset cursor.
 */

type Request = groups.ListGroupsRequest;

/** Grape would have refused these before GitLab's finder ran; callers other than the gateway may not. */
function checkParameters(req: Request) {
  if (req.orderBy && !(ORDER_BYS as readonly string[]).includes(req.orderBy))
    throw badParameter("order_by does not have a valid value");
  if (req.sort && req.sort !== "asc" && req.sort !== "desc")
    throw badParameter("sort does not have a valid value");
  if (req.visibility && !isVisibilityName(req.visibility))
    throw badParameter("visibility does not have a valid value");
  if (req.minAccessLevel && !(ACCESS_LEVELS as readonly number[]).includes(req.minAccessLevel))
    throw badParameter("min_access_level does not have a valid value");
}

/** The subtree the list is restricted to; `top_level_only` replaces the parent, unlooked-up (§4.7). */
async function scopeOf(deps: Deps, req: Request) {
  if (req.topLevelOnly) return { scope: { kind: "topLevel" } as Scope };
  if (
    req.scope !== groups.GroupScope.GROUP_SCOPE_SUBGROUPS &&
    req.scope !== groups.GroupScope.GROUP_SCOPE_DESCENDANTS
  )
    return { scope: { kind: "all" } as Scope };
  const parent = await resolveGroup(deps, req.actor, req.parent);
  const scope: Scope =
    req.scope === groups.GroupScope.GROUP_SCOPE_SUBGROUPS
      ? { kind: "children", parentId: parent.row.id }
      : { kind: "descendants", traversal: parent.row.traversal_ids };
  return { scope, parent };
}

/** GitLab's base set, first match wins (reference §4.1). */
async function baseOf(
  deps: Deps,
  req: Request,
  viewer: VisibilityViewer,
  parent?: Awaited<ReturnType<typeof scopeOf>>["parent"],
): Promise<BaseSet> {
  const { userId } = viewer;
  if (req.owned) return userId ? { kind: "owned", userId } : { kind: "none" };
  if (req.minAccessLevel && userId) return { kind: "minAccess", userId, level: req.minAccessLevel };
  if (viewer.admin && (req.allAvailable ?? true)) return { kind: "all" };
  // Whoever holds access to the parent (or above it) may see every group below it: no set to build.
  if (parent && !viewer.admin) {
    const access = await callerAccess(deps.pool, req.actor, parent.row);
    if (access.accessLevel > 0) return { kind: "all" };
  }
  const withPublic = !userId || req.allAvailable === true;
  return { kind: "readable", userId, publicFrom: withPublic ? lowestVisibleLevel(viewer) : undefined };
}

/** The values of a row's sort key, in the order's key order (what a cursor carries). */
const keyValues = (order: ListOrder, row: ListedGroupRow) =>
  order.keys.map((k) => {
    switch (k.column) {
      case "score":
        return row.sort_score;
      case "parent":
        return row.parent_id ?? 0;
      default:
        return row[k.column];
    }
  });

export async function listGroups(deps: Deps, req: Request): Promise<groups.ListGroupsResponse> {
  checkParameters(req);
  const actor = req.actor;
  const viewer: VisibilityViewer = {
    userId: actor?.userId ?? 0,
    admin: Boolean(actor?.admin),
    external: Boolean(actor?.external),
  };
  const { scope, parent } = await scopeOf(deps, req);
  const terms = searchTerms(req.search);
  const order = listOrder(req.orderBy, req.sort, terms !== undefined);
  const query: GroupListQuery = {
    base: await baseOf(deps, req, viewer, parent),
    scope,
    skipIds: req.skipGroups,
    visibilityLevel:
      req.visibility && isVisibilityName(req.visibility) ? visibilityLevelOf(req.visibility) : undefined,
    // Silently ignored for everyone but administrators (reference §7.22).
    customAttributes: viewer.admin ? req.customAttributes : [],
    search: terms,
    searchFullPath:
      req.scope !== groups.GroupScope.GROUP_SCOPE_SUBGROUPS &&
      req.scope !== groups.GroupScope.GROUP_SCOPE_DESCENDANTS,
    order,
    similarity:
      order.tag === "similarity"
        ? { query: req.search.trim(), trigram: await trigramSimilarityFunction(deps.pool) }
        : undefined,
  };
  const window = pageWindow(req.page);

  let rows: ListedGroupRow[];
  let page: groups.ListGroupsResponse["page"];
  if (req.page?.keyset) {
    const after = req.page.cursor ? decodeCursor(order, req.page.cursor) : undefined;
    if (req.page.cursor && !after) throw badParameter("cursor is invalid");
    const fetched = await listGroupRows(deps.pool, query, { limit: window.perPage + 1, offset: 0, after });
    rows = fetched.slice(0, window.perPage);
    const more = fetched.length > window.perPage;
    page = {
      page: 0,
      perPage: window.perPage,
      total: 0,
      totalCapped: false,
      nextCursor: more ? encodeCursor(order, keyValues(order, rows[rows.length - 1]!)) : "",
    };
  } else {
    rows = await listGroupRows(deps.pool, query, { ...window, keptCount: true });
    // A page that is not full tells the total unless it is empty past the first page.
    const known = rows.length < window.perPage && (rows.length > 0 || window.offset === 0);
    const counted = known
      ? window.offset + rows.length
      : await countGroupRows(deps.pool, query, rows.length ? rows[0]!.kept_count : undefined);
    page = pageInfo(window, counted);
  }
  return { groups: await present(deps, req, viewer, rows), page };
}

/** The list entity, with the administrator-only extras when asked for. */
async function present(deps: Deps, req: Request, viewer: VisibilityViewer, rows: ListedGroupRow[]) {
  const attributes =
    viewer.admin && req.withCustomAttributes && rows.length
      ? await customAttributesOf(
          deps.pool,
          rows.map((r) => r.id),
        )
      : undefined;
  const statistics =
    viewer.admin && req.statistics && rows.length
      ? await statisticsOf(
          deps.pool,
          rows.map((r) => Number(r.id)),
        )
      : undefined;
  return rows.map((row) => ({
    ...toGroup(deps, row),
    customAttributes: attributes?.get(Number(row.id)) ?? [],
    // Sums of the sizes projects report by events (store/projects.ts).
    statistics: statistics && (statistics.get(Number(row.id)) ?? groups.GroupStatistics.fromPartial({})),
  }));
}
