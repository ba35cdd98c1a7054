import { application } from "../entities/application";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { Application, listOf } from "../entities/schemas";

/** The admin Applications API: instance-wide applications only (GitLab lib/api/applications.rb). */

const createApplicationParams = {
  name: param.string(255).optional(),
  redirect_uri: param.string(10_000).optional(),
  scopes: param.string(1_000).optional(),
  confidential: param.boolean().optional(),
};

const requiredToCreate = (p: Call<typeof createApplicationParams>["params"]) => [
  p.name === undefined && "name is missing",
  p.redirect_uri === undefined && "redirect_uri is missing",
  p.scopes === undefined && "scopes is missing",
  !p.scopes?.trim() && "scopes is empty",
];

async function createApplication({ params: p, actor, ctx, deps }: Call<typeof createApplicationParams>) {
  const created = await deps.oauth.createApplication({
    actor,
    name: p.name!,
    redirectUri: p.redirect_uri!,
    scopes: p.scopes!.split(/\s+/).filter(Boolean),
    confidential: p.confidential ?? true,
    trusted: false,
    instance: true,
  });
  sendJson(ctx, 201, application(created.application!, created.secret));
}

const noParams = {};

async function listApplications({ actor, ctx, deps }: Call<typeof noParams>) {
  const res = await deps.oauth.listApplications({ actor, instance: true });
  sendJson(
    ctx,
    200,
    res.applications.map((a) => application(a)),
  );
}

const applicationIdParams = { id: param.id() };

async function deleteApplication({ params, actor, ctx, deps }: Call<typeof applicationIdParams>) {
  await deps.oauth.deleteApplication({ actor, id: params.id, instance: true });
  ctx.status = 204;
}

async function renewApplicationSecret({ params, actor, ctx, deps }: Call<typeof applicationIdParams>) {
  const renewed = await deps.oauth.renewApplicationSecret({ actor, id: params.id, instance: true });
  sendJson(ctx, 201, application(renewed.application!, renewed.secret));
}

export const applicationEndpoints = [
  endpoint({
    method: "POST",
    path: "/applications",
    access: "admin",
    params: createApplicationParams,
    validate: requiredToCreate,
    handler: createApplication,
    responses: { 201: Application },
  }),
  endpoint({
    method: "GET",
    path: "/applications",
    access: "admin",
    params: noParams,
    handler: listApplications,
    responses: { 200: listOf(Application) },
  }),
  endpoint({
    method: "DELETE",
    path: "/applications/:id",
    access: "admin",
    params: applicationIdParams,
    handler: deleteApplication,
    responses: { 204: null },
  }),
  endpoint({
    method: "POST",
    path: "/applications/:id/renew-secret",
    access: "admin",
    params: applicationIdParams,
    handler: renewApplicationSecret,
    responses: { 201: Application },
  }),
];
