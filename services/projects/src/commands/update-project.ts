import { forbidden, invalid, notFound, recordEvent, requireSignedIn, withTransaction } from "@canopy/kit";
import { PROJECTS_EVENTS, type projects } from "@canopy/protos";
import { projectAbilities } from "../domain/access";
import { checkedAttributes, takenErrors, visibilityErrors } from "../domain/project-attributes";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { projectDetail, resolveProject } from "../finders/projects";
import { findNamespaceById, subgroupPathTaken } from "../store/namespaces";
import { findProjectById, takenInNamespace, updateProject, type ProjectChanges } from "../store/projects";

/**
 * PUT /projects/:id (GitLab's Projects::UpdateService): visible (404), Maintainer or up (403), then
 * the model's validations (400 keyed by attribute) on the values the request changes.
 */
export async function updateProjectCommand(
  deps: Deps,
  req: projects.UpdateProjectRequest,
): Promise<projects.Project> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveProject(deps, actor, req.project);
  if (!projectAbilities(found.access.access_level).admin) throw forbidden();
  const a = req.attributes;
  const checked = checkedAttributes(a);
  if (checked.visibility !== undefined) {
    const namespace = await findNamespaceById(deps.pool, found.row.namespace_id);
    if (namespace) visibilityErrors(checked.visibility, namespace, checked.errors);
  }
  if (Object.keys(checked.errors).length) throw invalid(checked.errors);

  await withTransaction(deps.pool, async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('projects-namespace'), $1::int)", [
      found.row.namespace_id,
    ]);
    const before = await findProjectById(tx, found.row.id, true);
    if (!before) throw notFound("Project");
    const renamed = a?.path !== undefined && a.path.toLowerCase() !== before.path.toLowerCase();
    const taken = await takenInNamespace(
      tx,
      before.namespace_id,
      {
        path: renamed ? a.path : undefined,
        name: a?.name !== undefined && a.name !== before.name ? a.name : undefined,
      },
      before.id,
    );
    const subgroup = renamed ? await subgroupPathTaken(tx, before.namespace_id, a.path!) : false;
    takenErrors({ ...taken, subgroup }, checked.errors);
    if (Object.keys(checked.errors).length) throw invalid(checked.errors);
    const changes: ProjectChanges = {
      name: a?.name,
      path: a?.path,
      description: a?.description,
      visibility_level: checked.visibility,
      default_branch: a?.defaultBranch,
      topics: checked.topics,
      access_levels: checked.accessLevels,
      settings: checked.settings,
    };
    await updateProject(tx, before.id, changes);
    const after = (await findProjectById(tx, before.id))!;
    await recordEvent(
      tx,
      PROJECTS_EVENTS.projectUpdated,
      {
        project: projectSnapshot(after),
        changed: changedAttributes(a),
        oldPathWithNamespace: `${before.ns_full_path}/${before.path}`,
      },
      actor,
    );
  });
  const row = (await findProjectById(deps.pool, found.row.id))!;
  return projectDetail(deps, actor, { row, access: found.access });
}

/** The API attributes a request names (for the event). */
function changedAttributes(a: projects.ProjectAttributes | undefined): string[] {
  if (!a) return [];
  const named = [
    a.name !== undefined && "name",
    a.path !== undefined && "path",
    a.description !== undefined && "description",
    a.visibility !== undefined && "visibility",
    a.defaultBranch !== undefined && "default_branch",
    a.topics !== undefined && "topics",
  ].filter((x): x is string => Boolean(x));
  return [
    ...named,
    ...Object.keys(a.accessLevels).map((f) => `${f}_access_level`),
    ...Object.keys(a.flags),
    ...Object.keys(a.texts),
    ...Object.keys(a.numbers),
    ...a.cleared,
  ];
}
