import { z } from "zod";
import { ldap } from "@canopy/protos";
import { ldapGroupLinkEntity } from "../entities/ldap-group-link";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { groupRef } from "./groups";
import { LdapGroup, LdapGroupLink, listOf } from "../entities/schemas";

/**
 * LDAP group links, group sync and directory group search (GitLab ee/lib/api/ldap_group_links.rb,
 * ee/lib/api/ldap.rb, `POST /groups/:id/ldap_sync` of ee/lib/ee/api/groups.rb). Grape validates the
 * parameters before the endpoint looks the group up, so a 400 comes before the 403 of a caller who
 * may not manage the group; the ldap service decides the rest.
 */

/** `Gitlab::Access.values_with_minimal_access` as Canopy has them. */
const groupAccess = param.integer().pipe(z.literal([5, 10, 20, 30, 40, 50]));

/** Grape's `exactly_one_of :cn, :filter`: a key sent at all counts, even blank. */
function exactlyOneOfCnFilter(p: { cn?: string; filter?: string }): string | undefined {
  const sent = [p.cn, p.filter].filter((v) => v !== undefined);
  if (sent.length === 0) return "cn, filter are missing, exactly one parameter must be provided";
  if (sent.length > 1) return "cn, filter are mutually exclusive";
  return undefined;
}

/**
 * The create and delete forms' rules in Grape's declaration order, all at once: exactly one of cn
 * and filter, then the required ones (declared optional here so that every message comes together).
 */
const linkRules = (
  p: { cn?: string; filter?: string; group_access?: number; provider?: string },
  withAccess: boolean,
) => [
  exactlyOneOfCnFilter(p),
  withAccess && p.group_access === undefined && "group_access is missing",
  p.provider === undefined && "provider is missing",
];

const linksParams = { id: param.idOrPath() };

async function listLinks({ params, actor, ctx, deps }: Call<typeof linksParams>) {
  const res = await deps.ldap.listGroupLinks({ actor, group: groupRef(params.id) });
  sendJson(
    ctx,
    200,
    res.links.map((l) => ldapGroupLinkEntity(l, deps.config.CANOPY_PLAN)),
  );
}

const createParams = {
  id: param.idOrPath(),
  cn: param.string().optional(),
  filter: param.string(100_000).optional(),
  group_access: groupAccess.optional(),
  provider: param.string().optional(),
};

async function createLink({ params: p, actor, ctx, deps }: Call<typeof createParams>) {
  const link = await deps.ldap.createGroupLink({
    actor,
    group: groupRef(p.id),
    cn: p.cn,
    filter: p.filter,
    groupAccess: p.group_access!,
    provider: p.provider!,
  });
  sendJson(ctx, 201, ldapGroupLinkEntity(link, deps.config.CANOPY_PLAN));
}

const deleteByCnParams = { id: param.idOrPath(), cn: param.string() };

async function deleteLinkByCn({ params: p, actor, ctx, deps }: Call<typeof deleteByCnParams>) {
  await deps.ldap.deleteGroupLink({
    actor,
    group: groupRef(p.id),
    form: ldap.DeleteForm.DELETE_FORM_CN_ANY_PROVIDER,
    cn: p.cn,
    provider: "",
  });
  ctx.status = 204;
}

const deleteByProviderCnParams = { id: param.idOrPath(), provider: param.string(), cn: param.string() };

async function deleteLinkByProviderCn({
  params: p,
  actor,
  ctx,
  deps,
}: Call<typeof deleteByProviderCnParams>) {
  await deps.ldap.deleteGroupLink({
    actor,
    group: groupRef(p.id),
    form: ldap.DeleteForm.DELETE_FORM_CN_AND_PROVIDER,
    cn: p.cn,
    provider: p.provider,
  });
  ctx.status = 204;
}

const deleteParams = {
  id: param.idOrPath(),
  cn: param.string().optional(),
  filter: param.string(100_000).optional(),
  provider: param.string().optional(),
};

async function deleteLink({ params: p, actor, ctx, deps }: Call<typeof deleteParams>) {
  await deps.ldap.deleteGroupLink({
    actor,
    group: groupRef(p.id),
    form: ldap.DeleteForm.DELETE_FORM_PARAMS,
    cn: p.cn,
    filter: p.filter,
    provider: p.provider!,
  });
  ctx.status = 204;
}

const syncParams = { id: param.idOrPath() };

/** 202 whether or not a sync was queued; the body is what `status 202` leaves in Grape: `202`. */
async function syncGroup({ params, actor, ctx, deps }: Call<typeof syncParams>) {
  await deps.ldap.requestGroupSync({ actor, group: groupRef(params.id) });
  sendJson(ctx, 202, 202);
}

const searchParams = { search: param.string().optional() };

async function searchFirstServer({ params, actor, ctx, deps }: Call<typeof searchParams>) {
  const res = await deps.ldap.searchDirectoryGroups({ actor, provider: "", search: params.search ?? "" });
  sendJson(
    ctx,
    200,
    res.cns.map((cn) => ({ cn })),
  );
}

const providerSearchParams = { provider: param.string(), search: param.string().optional() };

async function searchProvider({ params, actor, ctx, deps }: Call<typeof providerSearchParams>) {
  const res = await deps.ldap.searchDirectoryGroups({
    actor,
    provider: params.provider,
    search: params.search ?? "",
  });
  sendJson(
    ctx,
    200,
    res.cns.map((cn) => ({ cn })),
  );
}

export const ldapEndpoints = [
  endpoint({
    method: "GET",
    path: "/groups/:id/ldap_group_links",
    access: "user",
    params: linksParams,
    handler: listLinks,
    responses: { 200: listOf(LdapGroupLink) },
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/ldap_group_links",
    access: "user",
    params: createParams,
    validate: (p) => linkRules(p, true),
    handler: createLink,
    responses: { 201: LdapGroupLink },
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/ldap_group_links/:cn",
    access: "user",
    params: deleteByCnParams,
    handler: deleteLinkByCn,
    responses: { 204: null },
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/ldap_group_links/:provider/:cn",
    access: "user",
    params: deleteByProviderCnParams,
    handler: deleteLinkByProviderCn,
    responses: { 204: null },
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/ldap_group_links",
    access: "user",
    params: deleteParams,
    validate: (p) => linkRules(p, false),
    handler: deleteLink,
    responses: { 204: null },
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/ldap_sync",
    access: "user",
    params: syncParams,
    handler: syncGroup,
    responses: { 202: z.literal(202) },
  }),
  endpoint({
    method: "GET",
    path: "/ldap/groups",
    access: "user",
    params: searchParams,
    handler: searchFirstServer,
    responses: { 200: listOf(LdapGroup) },
  }),
  endpoint({
    method: "GET",
    path: "/ldap/:provider/groups",
    access: "user",
    params: providerSearchParams,
    handler: searchProvider,
    responses: { 200: listOf(LdapGroup) },
  }),
];
