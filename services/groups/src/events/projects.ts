import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { PROJECTS_EVENTS, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import { deleteProject, setProjectStatistics, upsertProject } from "../store/projects";

/**
 * Keeps this service's copy of projects (path, visibility, sizes) in step with the projects service's
 * events: a durable consumer, each event applied once in its transaction. The copy answers the group
 * rules that depend on projects (README, "Projects in groups"); it may lag an event by milliseconds.
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
  if (changed?.project) return upsertProject(tx, changed.project);
  const removed = payloadOf(event, PROJECTS_EVENTS.projectRemoved);
  if (removed?.project) return deleteProject(tx, removed.project.id);
  const sizes = payloadOf(event, PROJECTS_EVENTS.projectStatisticsUpdated);
  if (sizes?.statistics) return setProjectStatistics(tx, sizes.statistics);
  deps.log.debug({ type: event.type }, "project event not used by groups");
}
