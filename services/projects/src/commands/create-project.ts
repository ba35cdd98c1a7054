import {
  forbidden,
  invalid,
  isVisibilityName,
  OWNER,
  recordEvent,
  requireSignedIn,
  visibilityLevelOf,
  withTransaction,
} from "@canopy/kit";
import { PROJECTS_EVENTS, type common, type events, type namespaces, type projects } from "@canopy/protos";
import { mayCreateInGroup } from "../domain/access";
import { checkedAttributes, takenErrors, visibilityErrors } from "../domain/project-attributes";
import { pathFromName } from "../domain/project-rules";
import type { Deps } from "../deps";
import { emptyStatistics, projectSnapshot } from "../events/snapshot";
import { projectDetail } from "../finders/projects";
import { namespaceAccessOf } from "../store/access";
import {
  findNamespaceById,
  findUserNamespace,
  insertNamespaceIfMissing,
  subgroupPathTaken,
  type NamespaceRow,
} from "../store/namespaces";
import { findProjectById, insertProject, insertProjectMember, takenInNamespace } from "../store/projects";
import { insertEvent } from "../store/events";
import { insertUserIfMissing, userRowOf } from "../store/users";

/** GitLab's answer for a namespace that is missing, invisible or not open to the caller. */
const namespaceNotValid = () => invalid({ namespace: ["is not valid"] });

/**
 * POST /projects: a project in `namespace_id` (a group or a personal namespace) or, without it, in
 * the caller's personal namespace. GitLab's Projects::CreateService: the namespace must be one the
 * caller may create projects in (else 400 namespace "is not valid"), then the model's validations
 * (400, keyed by attribute). The owner of a personal namespace becomes the project's Owner.
 */
export async function createProject(
  deps: Deps,
  req: projects.CreateProjectRequest,
): Promise<projects.Project> {
  const actor = requireSignedIn(req.actor);
  await rememberCreator(deps, req.creator, actor);
  const hint = usableHint(req.namespace, req.namespaceId, actor.userId);
  const namespace = await namespaceCopy(deps, req.namespaceId, actor.userId, hint);
  if (!namespace) throw namespaceNotValid();
  // The groups service's answer of a moment ago counts too: a membership just granted (its event
  // still on the way) already lets its member create.
  const level = actor.admin
    ? OWNER
    : Math.max(await namespaceAccessOf(deps.pool, actor.userId, namespace), hint?.accessLevel ?? 0);
  const creationLevel = hint?.namespace?.projectCreationLevel ?? namespace.project_creation_level;
  const allowed =
    namespace.kind === "user"
      ? namespace.owner_id === actor.userId || actor.admin
      : mayCreateInGroup(level, creationLevel);
  if (!allowed) throw namespaceNotValid();
  // A personal project of an external user is refused as GitLab refuses it (can_create_project).
  if (actor.external && namespace.kind === "user" && !actor.admin) throw forbidden();

  const a = req.attributes;
  const name = a?.name ?? a?.path ?? "";
  const path = a?.path ?? pathFromName(name);
  const checked = checkedAttributes({
    ...a!,
    name,
    path,
    topics: a?.topics,
    accessLevels: a?.accessLevels ?? {},
    flags: a?.flags ?? {},
    texts: a?.texts ?? {},
    numbers: a?.numbers ?? {},
    cleared: a?.cleared ?? [],
  });
  const visibilityName = a?.visibility ?? deps.settings.current().defaultProjectVisibility;
  const visibility =
    checked.visibility ?? (isVisibilityName(visibilityName) ? visibilityLevelOf(visibilityName) : 0);
  visibilityErrors(visibility, namespace, checked.errors);
  if (Object.keys(checked.errors).length) throw invalid(checked.errors);

  const id = await withTransaction(deps.pool, async (tx) => {
    // One create at a time per namespace, so two requests cannot both take a free path.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('projects-namespace'), $1::int)", [namespace.id]);
    const taken = await takenInNamespace(tx, namespace.id, { path, name });
    takenErrors({ ...taken, subgroup: await subgroupPathTaken(tx, namespace.id, path) }, checked.errors);
    if (Object.keys(checked.errors).length) throw invalid(checked.errors);
    const created = await insertProject(tx, {
      namespace_id: namespace.id,
      traversal_ids: namespace.traversal_ids,
      name,
      path,
      description: a?.description ?? null,
      visibility_level: visibility,
      default_branch: a?.defaultBranch || null,
      topics: checked.topics ?? [],
      creator_id: actor.userId,
      access_levels: checked.accessLevels,
      settings: checked.settings,
    });
    if (namespace.kind === "user" && namespace.owner_id)
      await insertProjectMember(tx, {
        projectId: created,
        userId: namespace.owner_id,
        accessLevel: OWNER,
        createdById: actor.userId,
      });
    // GitLab's EventCreateService#create_project: the creator's `created`, with no target.
    await insertEvent(tx, { projectId: created, authorId: actor.userId, action: "created" });
    const row = (await findProjectById(tx, created))!;
    await recordEvent(tx, PROJECTS_EVENTS.projectCreated, { project: projectSnapshot(row) }, actor);
    await recordEvent(
      tx,
      PROJECTS_EVENTS.projectStatisticsUpdated,
      { statistics: emptyStatistics(row) },
      actor,
    );
    return created;
  });
  const row = (await findProjectById(deps.pool, id))!;
  const personal = namespace.kind === "user";
  const access = {
    access_level: personal ? OWNER : level,
    project_access_level: personal ? OWNER : 0,
    group_access_level: personal ? 0 : level,
  };
  return projectDetail(deps, actor, { row, access });
}

/** The hint, when it describes the namespace asked for (the caller's own for namespace_id 0). */
function usableHint(hint: namespaces.NamespaceHint | undefined, namespaceId: number, userId: number) {
  const n = hint?.namespace;
  if (!n) return undefined;
  const asked = namespaceId ? n.id === namespaceId : n.kind === "user" && n.ownerId === userId;
  return asked ? hint : undefined;
}

/**
 * The namespace's copy. One made a moment ago may not have reached this service yet (the groups
 * service's event is on its way): the gateway's hint (the groups service's answer) fills it. Without
 * a hint a namespace_id is answered at once (missing or not shown to the caller); only the caller's
 * personal namespace, made by the groups service right after auth created the user, is awaited a
 * little (CANOPY_PROJECTS_COPY_WAIT_MS).
 */
export async function namespaceCopy(
  deps: Deps,
  namespaceId: number,
  userId: number,
  hint: namespaces.NamespaceHint | undefined,
): Promise<NamespaceRow | undefined> {
  if (hint?.namespace) await insertNamespaceIfMissing(deps.pool, hint.namespace);
  if (namespaceId) return findNamespaceById(deps.pool, namespaceId);
  const deadline = Date.now() + (hint ? 0 : deps.config.CANOPY_PROJECTS_COPY_WAIT_MS);
  for (;;) {
    const found = await findUserNamespace(deps.pool, userId);
    if (found || Date.now() >= deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The creator must be known here (owner rendering); the gateway's copy fills a lagging one. */
async function rememberCreator(deps: Deps, hint: events.UserSnapshot | undefined, actor: common.Actor) {
  if (!hint || hint.userId !== actor.userId) return;
  await insertUserIfMissing(deps.pool, userRowOf(hint));
}
