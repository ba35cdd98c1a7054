import {
  apiError,
  forbidden,
  notFound,
  recordEvent,
  requireSignedIn,
  rubyInspect,
  withTransaction,
} from "@canopy/kit";
import { PROJECTS_EVENTS, type groupProjects, type projects } from "@canopy/protos";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { projectDetail, resolveProject } from "../finders/projects";
import { subgroupPathTaken } from "../store/namespaces";
import { findProjectById, takenInNamespace } from "../store/projects";
import { namespaceCopy } from "./create-project";

/** GitLab's answer when Projects::TransferService refuses: 400 with the model's errors inspected. */
const transferFailed = (reason: string) =>
  apiError(400, `Failed to transfer project ${rubyInspect({ new_namespace: [reason] })}`);

/**
 * POST /groups/:id/projects/:project_id (GitLab's Projects::TransferService, administrators only):
 * the project moves into the group, taking the group's traversal_ids, and its visibility is lowered
 * to the group's when it was higher. Refused (400) when it is in the group already or the group
 * holds a project (or subgroup) with its path or name.
 */
export async function transferProject(
  deps: Deps,
  req: groupProjects.TransferProjectRequest,
): Promise<projects.Project> {
  const actor = requireSignedIn(req.actor);
  if (!actor.admin) throw forbidden();
  const found = await resolveProject(deps, actor, req.project);
  const namespace = await namespaceCopy(deps, req.namespaceId, actor.userId, undefined);
  if (!req.namespaceId || !namespace || namespace.kind !== "group") throw notFound("Group");

  await withTransaction(deps.pool, async (tx) => {
    // The namespace locks of create and rename: nobody takes the path while it moves in.
    for (const id of [found.row.namespace_id, namespace.id].sort((a, b) => a - b))
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('projects-namespace'), $1::int)", [id]);
    const before = await findProjectById(tx, found.row.id, true);
    if (!before) throw notFound("Project");
    if (before.namespace_id === namespace.id) throw transferFailed("Project is already in this namespace.");
    const taken = await takenInNamespace(tx, namespace.id, { path: before.path, name: before.name });
    if (taken.path || taken.name || (await subgroupPathTaken(tx, namespace.id, before.path)))
      throw transferFailed("Project with same name or path in target namespace already exists");
    await tx.query(
      `UPDATE projects SET namespace_id = $2, traversal_ids = $3,
              visibility_level = LEAST(visibility_level, $4), updated_at = now()
        WHERE id = $1`,
      [before.id, namespace.id, namespace.traversal_ids, namespace.visibility_level],
    );
    const after = (await findProjectById(tx, before.id))!;
    await recordEvent(
      tx,
      PROJECTS_EVENTS.projectTransferred,
      {
        project: projectSnapshot(after),
        oldNamespaceId: before.namespace_id,
        oldPathWithNamespace: `${before.ns_full_path}/${before.path}`,
      },
      actor,
    );
  });
  const row = (await findProjectById(deps.pool, found.row.id))!;
  return projectDetail(deps, actor, { row, access: found.access });
}
