import {
  customAttributeErrors,
  forbidden,
  invalid,
  notFound,
  type Queryable,
  recordEvent,
  recordNotFound,
  requireSignedIn,
  withTransaction,
} from "@canopy/kit";
import { PROJECTS_EVENTS, type common, type projectCustomAttributes, type projects } from "@canopy/protos";
import type { Deps } from "../deps";
import {
  deleteCustomAttribute,
  findCustomAttribute,
  findCustomAttributes,
  upsertCustomAttribute,
} from "../store/custom-attributes";
import { findProjectById, findProjectByPath, type ProjectRow } from "../store/projects";

/**
 * The project custom attributes API (GitLab's CustomAttributesEndpoints for projects): only
 * administrators (read/update_custom_attribute are global abilities), so everyone else is 403
 * before any lookup and nothing about the project leaks; an administrator then gets 404
 * "Project Not Found" for a project that does not exist. A missing key is "404 Not found".
 */
async function projectForCustomAttributes(
  db: Queryable,
  actor: common.Actor | undefined,
  ref: projects.ProjectRef | undefined,
): Promise<ProjectRow> {
  if (!actor?.admin) throw forbidden();
  const row = ref?.id ? await findProjectById(db, ref.id) : await findProjectByPath(db, ref?.fullPath ?? "");
  if (!row) throw notFound("Project");
  return row;
}

export async function listCustomAttributes(
  deps: Deps,
  req: projectCustomAttributes.ListProjectCustomAttributesRequest,
): Promise<projectCustomAttributes.ListProjectCustomAttributesResponse> {
  const project = await projectForCustomAttributes(deps.pool, req.actor, req.project);
  return { customAttributes: await findCustomAttributes(deps.pool, project.id) };
}

export async function getCustomAttribute(
  deps: Deps,
  req: projectCustomAttributes.GetProjectCustomAttributeRequest,
): Promise<projectCustomAttributes.ProjectCustomAttribute> {
  const project = await projectForCustomAttributes(deps.pool, req.actor, req.project);
  const found = await findCustomAttribute(deps.pool, project.id, req.key);
  if (!found) throw recordNotFound();
  return found;
}

/** PUT: creates or updates (200 either way); blank or oversized keys and values are 400. */
export async function setCustomAttribute(
  deps: Deps,
  req: projectCustomAttributes.SetProjectCustomAttributeRequest,
): Promise<projectCustomAttributes.ProjectCustomAttribute> {
  const actor = requireSignedIn(req.actor);
  const project = await projectForCustomAttributes(deps.pool, actor, req.project);
  const errors = customAttributeErrors(req.key, req.value);
  if (Object.keys(errors).length) throw invalid(errors);
  return withTransaction(deps.pool, async (tx) => {
    const saved = await upsertCustomAttribute(tx, project.id, req.key, req.value);
    await recordEvent(
      tx,
      PROJECTS_EVENTS.customAttributeSet,
      { projectId: project.id, key: saved.key, value: saved.value },
      actor,
    );
    return saved;
  });
}

export async function removeCustomAttribute(
  deps: Deps,
  req: projectCustomAttributes.DeleteProjectCustomAttributeRequest,
): Promise<projectCustomAttributes.DeleteProjectCustomAttributeResponse> {
  const actor = requireSignedIn(req.actor);
  const project = await projectForCustomAttributes(deps.pool, actor, req.project);
  await withTransaction(deps.pool, async (tx) => {
    const removed = await deleteCustomAttribute(tx, project.id, req.key);
    if (!removed) throw recordNotFound();
    await recordEvent(
      tx,
      PROJECTS_EVENTS.customAttributeRemoved,
      { projectId: project.id, key: removed.key },
      actor,
    );
  });
  return {};
}
