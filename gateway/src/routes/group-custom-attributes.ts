import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { groupRef } from "./groups";

/**
 * Custom attributes of groups (GitLab lib/api/custom_attributes_endpoints.rb, reference §4.16).
 * Administrators only, decided by the service: GETs are open routes there (anonymous callers get
 * 403, not 401), writes need a user (401) and valid parameters (400) before the 403.
 */

/** Keys live in the path; the service answers the model's limits (at most 255 characters). */
const keyParams = { id: param.idOrPath(), key: param.string() };
/**
 * A ceiling well above the service's own limit (10,000 characters, answered as a model error), so
 * that nothing larger crosses to the service at all.
 */
const VALUE_CEILING = 65_536;
const setParams = { ...keyParams, value: param.string(VALUE_CEILING) };
const listParams = { id: param.idOrPath() };

const attribute = (a: { key: string; value: string }) => ({ key: a.key, value: a.value });

async function listGroupCustomAttributes({ params: p, actor, ctx, deps }: Call<typeof listParams>) {
  const res = await deps.groupCustomAttributes.listCustomAttributes({ actor, group: groupRef(p.id) });
  sendJson(ctx, 200, res.customAttributes.map(attribute));
}

async function showGroupCustomAttribute({ params: p, actor, ctx, deps }: Call<typeof keyParams>) {
  const found = await deps.groupCustomAttributes.getCustomAttribute({
    actor,
    group: groupRef(p.id),
    key: p.key,
  });
  sendJson(ctx, 200, attribute(found));
}

/** 200, not 201, on create as on update. */
async function setGroupCustomAttribute({ params: p, actor, ctx, deps }: Call<typeof setParams>) {
  const saved = await deps.groupCustomAttributes.setCustomAttribute({
    actor,
    group: groupRef(p.id),
    key: p.key,
    value: p.value,
  });
  sendJson(ctx, 200, attribute(saved));
}

async function deleteGroupCustomAttribute({ params: p, actor, ctx, deps }: Call<typeof keyParams>) {
  await deps.groupCustomAttributes.deleteCustomAttribute({ actor, group: groupRef(p.id), key: p.key });
  ctx.status = 204;
}

export const groupCustomAttributeEndpoints = [
  endpoint({
    method: "GET",
    path: "/groups/:id/custom_attributes",
    access: "anonymous",
    params: listParams,
    handler: listGroupCustomAttributes,
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/custom_attributes/:key",
    access: "anonymous",
    params: keyParams,
    handler: showGroupCustomAttribute,
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/custom_attributes/:key",
    access: "user",
    params: setParams,
    handler: setGroupCustomAttribute,
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/custom_attributes/:key",
    access: "user",
    params: keyParams,
    handler: deleteGroupCustomAttribute,
  }),
];
