import { z } from "zod";
import { groups } from "@canopy/protos";
import { groupEntity, type GroupShaping } from "../entities/group";
import { listLdapLinks, type LdapLinkEntity } from "./group-ldap";
import { endpoint, type Call } from "../http/endpoint";
import { HttpError, paramError } from "../http/errors";
import { sendJson } from "../http/json";
import { keysetPaginationParams, keysetPageRequest, paginateAnswer } from "../http/pagination";
import { param } from "../http/params";
import { rawParams } from "./context";
import { groupRef, shapingOf } from "./groups";
import { Group, listOf } from "../entities/schemas";

/**
 * The group lists (GitLab lib/api/groups.rb): GET /groups, /groups/:id/subgroups and
 * /groups/:id/descendant_groups. The groups service decides what the caller may see; this file
 * reads the parameters as Grape does and shapes the answer and its pagination headers.
 * Keyset pages (`pagination=keyset&cursor=...`) work on all three, for every caller and order.
 */

/** An integer that must be one of `values`: "is invalid" when not a number, else "does not have a valid value". */
const intOneOf = (values: readonly [number, ...number[]]) => param.integer().pipe(z.literal(values));

const listParams = {
  ...keysetPaginationParams,
  skip_groups: param.array(param.id()).optional(),
  all_available: param.boolean().optional(),
  search: param.string(1_000).optional(),
  order_by: param.oneOf(["name", "path", "id", "similarity"]).optional(),
  sort: param.oneOf(["asc", "desc"]).optional(),
  statistics: param.boolean().optional(),
  with_custom_attributes: param.boolean().optional(),
  owned: param.boolean().optional(),
  min_access_level: intOneOf([10, 20, 30, 40, 50]).optional(),
  top_level_only: param.boolean().optional(),
  visibility: param.oneOf(["private", "internal", "public"]).optional(),
};
const parentListParams = { id: param.idOrPath(), ...listParams };
type ListParams = Call<typeof listParams>["params"];

/** `custom_attributes[key]=value` pairs (query or form), or a JSON object of them. */
export function customAttributesOf(raw: Record<string, unknown>): groups.CustomAttribute[] {
  const pairs: [string, unknown][] = [];
  for (const [k, v] of Object.entries(raw)) {
    const m = /^custom_attributes\[(.+)\]$/.exec(k);
    if (m) pairs.push([m[1]!, v]);
  }
  const hash = raw.custom_attributes;
  if (hash !== undefined) {
    if (typeof hash !== "object" || hash === null || Array.isArray(hash))
      throw paramError("custom_attributes is invalid");
    pairs.push(...Object.entries(hash));
  }
  return pairs.map(([key, value]) => {
    const text = typeof value === "number" ? String(value) : value;
    if (typeof text !== "string" || text.includes("\u0000") || key.includes("\u0000"))
      throw paramError("custom_attributes is invalid");
    return { key, value: text };
  });
}

/**
 * GitLab's offset limit of anonymous GET /groups: page × per_page (as given) above 50,000 is 405,
 * pointing at keyset pages (lib/api/helpers/pagination_strategies.rb).
 */
const OFFSET_LIMIT = 50_000;
function refuseDeepOffset(p: ListParams) {
  if (p.pagination === "keyset") return;
  if ((p.page ?? 1) * (p.per_page ?? 20) > OFFSET_LIMIT)
    throw new HttpError(405, {
      error: `Offset pagination has a maximum allowed offset of ${OFFSET_LIMIT} for requests that return objects of type Group. Remaining records can be retrieved using keyset pagination.`,
    });
}

/** GitLab's Group entity (its EE `ldap_group_links` when any) with the administrator-only extras as asked. */
function listedGroup(
  g: groups.Group,
  s: GroupShaping,
  p: ListParams,
  admin: boolean,
  ldapLinks?: LdapLinkEntity[],
) {
  return {
    ...groupEntity(g, s, ldapLinks),
    ...(admin && p.with_custom_attributes ? { custom_attributes: g.customAttributes } : {}),
  };
}

async function answerList(
  { params: p, actor, ctx, deps }: Call<typeof listParams>,
  scope: groups.GroupScope,
  parent?: groups.GroupRef,
) {
  const keyset = p.pagination === "keyset";
  const res = await deps.groups.listGroups({
    actor,
    scope,
    parent,
    skipGroups: p.skip_groups ?? [],
    allAvailable: p.all_available,
    search: p.search ?? "",
    orderBy: p.order_by ?? "",
    sort: p.sort ?? "",
    statistics: Boolean(p.statistics),
    withCustomAttributes: Boolean(p.with_custom_attributes),
    customAttributes: customAttributesOf(rawParams(ctx)),
    owned: Boolean(p.owned),
    minAccessLevel: p.min_access_level ?? 0,
    topLevelOnly: Boolean(p.top_level_only),
    visibility: p.visibility ?? "",
    page: keysetPageRequest(p, keyset),
  });
  paginateAnswer(ctx, deps.config.CANOPY_EXTERNAL_URL, res.page!, res.groups.length, keyset);
  const shaping = shapingOf(deps);
  const links = await listLdapLinks(
    deps,
    actor,
    res.groups.map((g) => g.id),
  );
  sendJson(
    ctx,
    200,
    res.groups.map((g) => listedGroup(g, shaping, p, actor.admin, links.get(g.id))),
  );
}

async function listGroups(call: Call<typeof listParams>) {
  if (!call.actor.userId) refuseDeepOffset(call.params);
  await answerList(call, groups.GroupScope.GROUP_SCOPE_ALL);
}

async function listSubgroups(call: Call<typeof parentListParams>) {
  await answerList(call, groups.GroupScope.GROUP_SCOPE_SUBGROUPS, groupRef(call.params.id));
}

async function listDescendantGroups(call: Call<typeof parentListParams>) {
  await answerList(call, groups.GroupScope.GROUP_SCOPE_DESCENDANTS, groupRef(call.params.id));
}

export const groupListEndpoints = [
  endpoint({
    method: "GET",
    path: "/groups",
    access: "anonymous",
    params: listParams,
    handler: listGroups,
    cacheAnswers: true,
    responses: { 200: listOf(Group) },
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/subgroups",
    access: "anonymous",
    params: parentListParams,
    handler: listSubgroups,
    cacheAnswers: true,
    responses: { 200: listOf(Group) },
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/descendant_groups",
    access: "anonymous",
    params: parentListParams,
    handler: listDescendantGroups,
    cacheAnswers: true,
    responses: { 200: listOf(Group) },
  }),
];
