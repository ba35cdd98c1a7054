import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { projectRef } from "./projects";

/**
 * Custom attributes of projects (GitLab lib/api/custom_attributes_endpoints.rb). Administrators
 * only, decided by the service: GETs are open routes (anonymous callers get 403, not 401), writes
 * need a user (401) and valid parameters (400) before the 403.
 */

const keyParams = { id: param.idOrPath(), key: param.string() };
/** Far above the service's limit (10,000 characters, a model error): nothing larger crosses. */
const VALUE_CEILING = 65_536;
const setParams = { ...keyParams, value: param.string(VALUE_CEILING) };
const listParams = { id: param.idOrPath() };

const attribute = (a: { key: string; value: string }) => ({ key: a.key, value: a.value });

async function listAttributes({ params: p, actor, ctx, deps }: Call<typeof listParams>) {
  const res = await deps.projectCustomAttributes.listProjectCustomAttributes({
    actor,
    project: projectRef(p.id),
  });
  sendJson(ctx, 200, res.customAttributes.map(attribute));
}

async function showAttribute({ params: p, actor, ctx, deps }: Call<typeof keyParams>) {
  const found = await deps.projectCustomAttributes.getProjectCustomAttribute({
    actor,
    project: projectRef(p.id),
    key: p.key,
  });
  sendJson(ctx, 200, attribute(found));
}

/** 200, not 201, on create as on update. */
async function setAttribute({ params: p, actor, ctx, deps }: Call<typeof setParams>) {
  const saved = await deps.projectCustomAttributes.setProjectCustomAttribute({
    actor,
    project: projectRef(p.id),
    key: p.key,
    value: p.value,
  });
  sendJson(ctx, 200, attribute(saved));
}

async function deleteAttribute({ params: p, actor, ctx, deps }: Call<typeof keyParams>) {
  await deps.projectCustomAttributes.deleteProjectCustomAttribute({
    actor,
    project: projectRef(p.id),
    key: p.key,
  });
  ctx.status = 204;
}

export const projectCustomAttributeEndpoints = [
  endpoint({
    method: "GET",
    path: "/projects/:id/custom_attributes",
    access: "anonymous",
    params: listParams,
    handler: listAttributes,
  }),
  endpoint({
    method: "GET",
    path: "/projects/:id/custom_attributes/:key",
    access: "anonymous",
    params: keyParams,
    handler: showAttribute,
  }),
  endpoint({
    method: "PUT",
    path: "/projects/:id/custom_attributes/:key",
    access: "user",
    params: setParams,
    handler: setAttribute,
  }),
  endpoint({
    method: "DELETE",
    path: "/projects/:id/custom_attributes/:key",
    access: "user",
    params: keyParams,
    handler: deleteAttribute,
  }),
];
