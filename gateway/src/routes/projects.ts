import { grpcStatus, isServiceError } from "@canopy/kit";
import type { common, namespaces, projects } from "@canopy/protos";
import { projectEntity, projectWithAccessEntity } from "../entities/project";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param, type IdOrPath } from "../http/params";
import type { RouteDeps } from "./context";
import { userHint } from "./groups";
import { listProjects, listParams, listUserProjects, userListParams } from "./project-lists";
import { projectAttributeParams, toProjectAttributes } from "./project-params";
import { projectShaping, withAttributes } from "./project-shaping";
import { z } from "zod";
import { Accepted, BasicProject, Project, ProjectWithAccess, listOf } from "../entities/schemas";

/**
 * The Projects API core (GitLab lib/api/projects.rb): create, read, update, delete, the project
 * lists (their handlers in project-lists.ts), stars and archiving. The projects service decides what
 * the caller may see and do.
 */

/** `:id` of the API as the projects service's reference. */
export const projectRef = (id: IdOrPath): projects.ProjectRef => ({
  id: id.id ?? 0,
  fullPath: id.path ?? "",
});

const idParams = { id: param.idOrPath() };
const showParams = { ...idParams, with_custom_attributes: param.boolean().optional() };

async function showProject({ params: p, actor, ctx, deps }: Call<typeof showParams>) {
  const project = await deps.projects.getProject({
    actor,
    project: projectRef(p.id),
    withCustomAttributes: Boolean(p.with_custom_attributes),
  });
  sendJson(ctx, 200, withAttributes(projectWithAccessEntity(project, projectShaping(deps)), project));
}

const createParams = {
  name: param.string(10_000).optional(),
  path: param.string(10_000).optional(),
  namespace_id: param.integer().optional(),
  ...projectAttributeParams,
};

/**
 * The namespace as the groups service shows it to the caller (the caller's personal namespace
 * without namespace_id), passed on so that the projects service knows one made a moment ago without
 * waiting for its event. Missing or not shown: no hint, and the projects service answers GitLab's
 * 400 `namespace is not valid` at once.
 */
async function namespaceHint(
  deps: RouteDeps,
  actor: common.Actor,
  namespaceId: number,
): Promise<namespaces.NamespaceHint | undefined> {
  const ref = namespaceId ? { id: namespaceId, fullPath: "" } : { id: 0, fullPath: actor.username };
  if (!ref.id && !ref.fullPath) return undefined;
  return deps.namespaces.getNamespaceHint({ actor, namespace: ref }).catch((err: unknown) => {
    if (isServiceError(err) && err.code === grpcStatus.NOT_FOUND) return undefined;
    throw err;
  });
}

async function createProject({ params: p, actor, user, ctx, deps }: Call<typeof createParams>) {
  const namespaceId = p.namespace_id ?? 0;
  const project = await deps.projects.createProject({
    actor,
    namespaceId,
    attributes: toProjectAttributes(p as Record<string, unknown>),
    creator: userHint(user),
    namespace: await namespaceHint(deps, actor, namespaceId),
  });
  sendJson(ctx, 201, projectWithAccessEntity(project, projectShaping(deps)));
}

const updateParams = {
  id: param.idOrPath(),
  name: param.string(10_000).optional(),
  path: param.string(10_000).optional(),
  ...projectAttributeParams,
};

async function updateProject({ params: p, actor, ctx, deps }: Call<typeof updateParams>) {
  const project = await deps.projects.updateProject({
    actor,
    project: projectRef(p.id),
    attributes: toProjectAttributes(p as Record<string, unknown>),
  });
  sendJson(ctx, 200, projectWithAccessEntity(project, projectShaping(deps)));
}

async function deleteProject({ params: p, actor, ctx, deps }: Call<typeof idParams>) {
  await deps.projects.deleteProject({ actor, project: projectRef(p.id) });
  sendJson(ctx, 202, { message: "202 Accepted" });
}

/** 201 with the project, or 304 with no body when nothing changed (GitLab's not_modified!). */
async function star(call: Call<typeof idParams>, starred: boolean) {
  const { params: p, actor, ctx, deps } = call;
  const req = { actor, project: projectRef(p.id) };
  const res = starred ? await deps.projects.starProject(req) : await deps.projects.unstarProject(req);
  if (!res.changed) {
    ctx.status = 304;
    return;
  }
  sendJson(ctx, 201, projectEntity(res.project!, projectShaping(deps)));
}

/** EE: 201 with the project, unmarked and unarchived (refusals from the service: 403, 404, 400). */
async function restoreProject({ params: p, actor, ctx, deps }: Call<typeof idParams>) {
  const project = await deps.projectLifecycle.restoreProject({ actor, project: projectRef(p.id) });
  sendJson(ctx, 201, projectEntity(project, projectShaping(deps)));
}

async function archive(call: Call<typeof idParams>, archived: boolean) {
  const { params: p, actor, ctx, deps } = call;
  const req = { actor, project: projectRef(p.id) };
  const project = archived
    ? await deps.projects.archiveProject(req)
    : await deps.projects.unarchiveProject(req);
  sendJson(ctx, 201, projectEntity(project, projectShaping(deps)));
}

export const projectEndpoints = [
  endpoint({
    method: "GET",
    path: "/projects",
    access: "anonymous",
    params: listParams,
    handler: listProjects,
    cacheAnswers: true,
    responses: { 200: z.union([listOf(Project), listOf(BasicProject)]) },
  }),
  endpoint({
    method: "POST",
    path: "/projects",
    access: "user",
    params: createParams,
    validate: (p) => [
      p.name === undefined &&
        p.path === undefined &&
        "name, path are missing, at least one parameter must be provided",
    ],
    handler: createProject,
    responses: { 201: ProjectWithAccess },
  }),
  endpoint({
    method: "GET",
    path: "/projects/:id",
    access: "anonymous",
    params: showParams,
    handler: showProject,
    cacheAnswers: true,
    responses: { 200: ProjectWithAccess },
  }),
  endpoint({
    method: "PUT",
    path: "/projects/:id",
    access: "user",
    params: updateParams,
    handler: updateProject,
    responses: { 200: ProjectWithAccess },
  }),
  endpoint({
    method: "DELETE",
    path: "/projects/:id",
    access: "user",
    params: idParams,
    handler: deleteProject,
    responses: { 202: Accepted },
  }),
  endpoint({
    method: "POST",
    path: "/projects/:id/star",
    access: "user",
    params: idParams,
    handler: (call: Call<typeof idParams>) => star(call, true),
    responses: { 201: Project, 304: null },
  }),
  endpoint({
    method: "POST",
    path: "/projects/:id/unstar",
    access: "user",
    params: idParams,
    handler: (call: Call<typeof idParams>) => star(call, false),
    responses: { 201: Project, 304: null },
  }),
  endpoint({
    method: "POST",
    path: "/projects/:id/archive",
    access: "user",
    params: idParams,
    handler: (call: Call<typeof idParams>) => archive(call, true),
    responses: { 201: Project },
  }),
  endpoint({
    method: "POST",
    path: "/projects/:id/unarchive",
    access: "user",
    params: idParams,
    handler: (call: Call<typeof idParams>) => archive(call, false),
    responses: { 201: Project },
  }),
  endpoint({
    method: "POST",
    path: "/projects/:id/restore",
    access: "user",
    params: idParams,
    handler: restoreProject,
    responses: { 201: Project },
  }),
  endpoint({
    method: "GET",
    path: "/users/:user_id/projects",
    access: "anonymous",
    params: userListParams,
    handler: listUserProjects,
    cacheAnswers: true,
    responses: { 200: z.union([listOf(Project), listOf(BasicProject)]) },
  }),
];
