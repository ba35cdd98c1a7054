import { recordEvent, type PoolClient } from "@canopy/kit";
import { PROJECTS_EVENTS } from "@canopy/protos";
import type { Deps } from "../deps";
import { projectSnapshot } from "../events/snapshot";
import { deleteProject, lockProjectsIn, type ProjectRow } from "../store/projects";

/** Removes one project (its members, shares and stars go with it) and records ProjectRemoved. */
export async function removeProject(tx: PoolClient, row: ProjectRow): Promise<void> {
  await deleteProject(tx, row.id);
  await recordEvent(tx, PROJECTS_EVENTS.projectRemoved, { project: projectSnapshot(row) });
}

/**
 * A namespace is gone (a group removed, deepest first, or a user's namespace): every project in it
 * goes in the same transaction, each with its event (hooks deliver project_destroy for them).
 */
export async function removeProjectsOf(deps: Deps, tx: PoolClient, namespaceId: number): Promise<void> {
  const rows = await lockProjectsIn(tx, namespaceId);
  for (const row of rows) await removeProject(tx, row);
  if (rows.length)
    deps.log.info({ namespaceId, projects: rows.length }, "projects removed with their namespace");
}
