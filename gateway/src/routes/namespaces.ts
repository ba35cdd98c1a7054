import { namespaceEntity } from "../entities/namespace";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { param } from "../http/params";
import { groupRef, shapingOf } from "./groups";
import { Namespace, listOf } from "../entities/schemas";

/**
 * The Namespaces API (GitLab lib/api/namespaces.rb): signed-in callers only. Clients use it to find
 * the namespace_id of a group or of their own namespace.
 */

const listNamespacesParams = {
  ...paginationParams,
  search: param.string(1_000).optional(),
  owned_only: param.boolean().optional(),
  top_level_only: param.boolean().optional(),
  full_path_search: param.boolean().optional(),
};

async function listNamespaces({ params: p, actor, ctx, deps }: Call<typeof listNamespacesParams>) {
  const res = await deps.namespaces.listNamespaces({
    actor,
    search: p.search ?? "",
    ownedOnly: Boolean(p.owned_only),
    topLevelOnly: Boolean(p.top_level_only),
    fullPathSearch: Boolean(p.full_path_search),
    page: pageRequest(p),
  });
  paginate(ctx, deps.config.CANOPY_EXTERNAL_URL, { offset: res.page!, itemsOnPage: res.namespaces.length });
  const shaping = shapingOf(deps);
  sendJson(
    ctx,
    200,
    res.namespaces.map((n) => namespaceEntity(n, shaping)),
  );
}

const showNamespaceParams = { id: param.idOrPath() };

async function showNamespace({ params: p, actor, ctx, deps }: Call<typeof showNamespaceParams>) {
  const n = await deps.namespaces.getNamespace({ actor, namespace: groupRef(p.id) });
  sendJson(ctx, 200, namespaceEntity(n, shapingOf(deps)));
}

export const namespaceEndpoints = [
  endpoint({
    method: "GET",
    path: "/namespaces",
    access: "user",
    params: listNamespacesParams,
    handler: listNamespaces,
    responses: { 200: listOf(Namespace) },
  }),
  endpoint({
    method: "GET",
    path: "/namespaces/:id",
    access: "user",
    params: showNamespaceParams,
    handler: showNamespace,
    responses: { 200: Namespace },
  }),
];
