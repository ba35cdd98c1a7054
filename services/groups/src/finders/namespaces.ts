import { notFound, OWNER, pageInfo, pageWindow, planFeatures, searchTerms } from "@canopy/kit";
import type { common, namespaces } from "@canopy/protos";
import type { Deps } from "../deps";
import {
  accessToGroups,
  countNamespaceRows,
  findNamespaceListRow,
  listNamespaceRows,
  membersWithDescendants,
  type NamespaceListRow,
} from "../store/namespace-lists";
import { findNamespaceById } from "../store/namespaces";
import { namespaceSnapshot } from "../events/snapshot";
import { avatarPath } from "./group-view";

/**
 * GitLab's Namespaces API (lib/api/namespaces.rb, entities Namespace/NamespaceBasic): the caller's
 * personal namespace and the groups they are a direct member of (owned ones with owned_only), or
 * every namespace for administrators; one namespace to those who have access to it.
 */

/** Whether the caller administers each row: admins all; a group's effective Owners; a user's own. */
async function administered(deps: Deps, actor: common.Actor | undefined, rows: NamespaceListRow[]) {
  if (actor?.admin) return new Set(rows.map((r) => Number(r.id)));
  const userId = actor?.userId ?? 0;
  const groupIds = rows.filter((r) => r.kind === "group").map((r) => Number(r.id));
  const access = groupIds.length
    ? await accessToGroups(deps.pool, userId, groupIds)
    : new Map<number, number>();
  return new Set(
    rows
      .filter((r) =>
        r.kind === "user" ? Number(r.owner_id) === userId : (access.get(Number(r.id)) ?? 0) >= OWNER,
      )
      .map((r) => Number(r.id)),
  );
}

async function present(
  deps: Deps,
  actor: common.Actor | undefined,
  rows: NamespaceListRow[],
): Promise<namespaces.Namespace[]> {
  const admins = await administered(deps, actor, rows);
  const counted = await membersWithDescendants(
    deps.pool,
    rows.filter((r) => r.kind === "group" && admins.has(Number(r.id))).map((r) => Number(r.id)),
  );
  const paid = planFeatures(deps.config.CANOPY_PLAN).premiumGroupFields;
  return rows.map((r) => {
    const id = Number(r.id);
    const count = counted.get(id) ?? 0;
    const mine = admins.has(id);
    return {
      id,
      name: r.name,
      path: r.path,
      kind: r.kind,
      fullPath: r.full_path,
      parentId: r.parent_id ? Number(r.parent_id) : 0,
      avatarPath: r.kind === "group" && r.avatar_filename ? avatarPath(id, r.avatar_filename) : "",
      avatarUrl: r.user_avatar_url ?? "",
      membersCountWithDescendants: r.kind === "group" && mine ? count : undefined,
      billableMembersCount: mine && paid ? (r.kind === "group" ? count : 1) : undefined,
      administered: mine,
    };
  });
}

export async function listNamespaces(
  deps: Deps,
  req: namespaces.ListNamespacesRequest,
): Promise<namespaces.ListNamespacesResponse> {
  const userId = req.actor?.userId ?? 0;
  const query = {
    userId,
    all: Boolean(req.actor?.admin),
    ownedOnly: req.ownedOnly,
    topLevelOnly: req.topLevelOnly,
    search: searchTerms(req.search),
    fullPathSearch: req.fullPathSearch,
  };
  const window = pageWindow(req.page);
  const rows = await listNamespaceRows(deps.pool, query, window);
  const known = rows.length < window.perPage && (rows.length > 0 || window.offset === 0);
  const counted = known ? window.offset + rows.length : await countNamespaceRows(deps.pool, query);
  return { namespaces: await present(deps, req.actor, rows), page: pageInfo(window, counted) };
}

/** 404 "Namespace Not Found" when missing or when the caller has no access (read_namespace_via_membership). */
export async function getNamespace(
  deps: Deps,
  req: namespaces.GetNamespaceRequest,
): Promise<namespaces.Namespace> {
  const ref = req.namespace;
  const row = ref?.id || ref?.fullPath ? await findNamespaceListRow(deps.pool, ref) : undefined;
  if (!row) throw notFound("Namespace");
  const [shown] = await present(deps, req.actor, [row]);
  const userId = req.actor?.userId ?? 0;
  const hasAccess =
    shown!.administered ||
    (row.kind === "group" &&
      userId > 0 &&
      ((await accessToGroups(deps.pool, userId, [Number(row.id)])).get(Number(row.id)) ?? 0) > 0);
  if (!hasAccess) throw notFound("Namespace");
  return shown!;
}

/**
 * For POST /projects: the namespace as the projects service copies it and the caller's effective
 * access to it (a personal namespace: Owner for its user), shown to whom GetNamespace shows it.
 */
export async function getNamespaceHint(
  deps: Deps,
  req: namespaces.GetNamespaceRequest,
): Promise<namespaces.NamespaceHint> {
  const shown = await getNamespace(deps, req);
  const row = await findNamespaceById(deps.pool, shown.id);
  if (!row) throw notFound("Namespace");
  const userId = req.actor?.userId ?? 0;
  const accessLevel =
    row.kind === "user"
      ? Number(row.owner_id) === userId
        ? OWNER
        : 0
      : ((await accessToGroups(deps.pool, userId, [shown.id])).get(shown.id) ?? 0);
  return { namespace: namespaceSnapshot(row), accessLevel };
}
