import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { PROJECTS_EVENTS, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import { deleteProjectAccessOf } from "../store/project-access";
import { deleteProject, projectHasReaders, setProjectStatistics, upsertProject } from "../store/projects";
import { copiesChanged } from "./copies-changed";

/**
 * Keeps this service's copy of projects (path, visibility, sizes) in step with the projects service's
 * events: a durable consumer, each event applied once in its transaction. The copy answers the group
 * rules that depend on projects (README, "Projects in groups") and places the projects its copies of
 * project memberships and shares name (events/project-access.ts); it may lag an event by milliseconds.
 * A project that appears, moves or goes while someone sees it through a membership or a share
 * records GroupCopiesChanged (who reads which group changed).
 */
export const projectsConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "groups-projects",
  subjects: ["canopy.projects.project.>"],
  handle: (event, tx) => applyProjectEvent(deps, event, tx),
});

export async function applyProjectEvent(deps: Deps, event: events.Event, tx: PoolClient): Promise<void> {
  const changed =
    payloadOf(event, PROJECTS_EVENTS.projectCreated) ??
    payloadOf(event, PROJECTS_EVENTS.projectUpdated) ??
    payloadOf(event, PROJECTS_EVENTS.projectTransferred) ??
    payloadOf(event, PROJECTS_EVENTS.projectArchived) ??
    payloadOf(event, PROJECTS_EVENTS.projectUnarchived) ??
    payloadOf(event, PROJECTS_EVENTS.projectMarkedForDeletion) ??
    payloadOf(event, PROJECTS_EVENTS.projectRestored) ??
    // The projects service's one-time snapshot of every project (its migration 0006): an upsert too.
    payloadOf(event, PROJECTS_EVENTS.projectRepublished);
  if (changed?.project) {
    const moved = await upsertProject(tx, changed.project);
    if (moved && (await projectHasReaders(tx, changed.project.id))) await copiesChanged(tx, event);
    return;
  }
  const removed = payloadOf(event, PROJECTS_EVENTS.projectRemoved);
  if (removed?.project) {
    // Its memberships and shares go with it (the projects service publishes no event for them).
    const readers = await projectHasReaders(tx, removed.project.id);
    await deleteProjectAccessOf(tx, removed.project.id);
    await deleteProject(tx, removed.project.id);
    if (readers) await copiesChanged(tx, event);
    return;
  }
  const sizes = payloadOf(event, PROJECTS_EVENTS.projectStatisticsUpdated);
  if (sizes?.statistics) return setProjectStatistics(tx, sizes.statistics);
  deps.log.debug({ type: event.type }, "project event not used by groups");
}
