import { payloadOf, type BatchScope, type PoolClient } from "@canopy/kit";
import { AUTH_EVENTS, PROJECTS_EVENTS, userSnapshotOf, type events } from "@canopy/protos";
import { buildProjectPayload, type ProjectEventName } from "../payloads";
import {
  deleteProject,
  deleteUser,
  findProject,
  setUserState,
  upsertProject,
  upsertUser,
} from "../store/copies";
import { hooksForEvent } from "../store/hooks";
import { namespaceIn } from "./batch-work";
import { GroupNotYetKnown, type Fired } from "./fired";
import { hookGroupOf, hookProjectOf, hookUserOf } from "./payload-inputs";

/** Project events (project_create, project_destroy) and the user copies' events. */
export async function applyProjectOrUser(
  event: events.Event,
  tx: PoolClient,
  batch: BatchScope,
  at: Date,
): Promise<Fired | undefined> {
  const created = payloadOf(event, PROJECTS_EVENTS.projectCreated)?.project;
  if (created) {
    await upsertProject(tx, created, at);
    return projectEvent(tx, batch, "project_create", created.id, created.traversalIds);
  }
  const changed =
    payloadOf(event, PROJECTS_EVENTS.projectUpdated)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectArchived)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectUnarchived)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectMarkedForDeletion)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectRestored)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectTransferred)?.project ??
    payloadOf(event, PROJECTS_EVENTS.projectRepublished)?.project;
  if (changed) {
    await upsertProject(tx, changed, at);
    return undefined;
  }
  const removed = payloadOf(event, PROJECTS_EVENTS.projectRemoved)?.project;
  if (removed) {
    await upsertProject(tx, removed, at);
    const fired = await projectEvent(tx, batch, "project_destroy", removed.id, removed.traversalIds);
    await deleteProject(tx, removed.id);
    return fired;
  }
  const snapshot = payloadOf(event, AUTH_EVENTS.userCreated) ?? payloadOf(event, AUTH_EVENTS.userUpdated);
  if (snapshot) {
    const u = userSnapshotOf(snapshot);
    await upsertUser(tx, {
      id: u.userId,
      username: u.username,
      name: u.name,
      email: u.email,
      public_email: u.publicEmail,
      state: u.state,
    });
    return undefined;
  }
  const blocked = payloadOf(event, AUTH_EVENTS.userBlocked);
  if (blocked) await setUserState(tx, blocked.userId, "blocked");
  const unblocked = payloadOf(event, AUTH_EVENTS.userUnblocked);
  if (unblocked) await setUserState(tx, unblocked.userId, "active");
  const deleted = payloadOf(event, AUTH_EVENTS.userDeleted);
  if (deleted) await deleteUser(tx, deleted.userId);
  return undefined;
}

/** project_create / project_destroy: the project's group is its "owner" (owner_name), its Owners `owners`. */
async function projectEvent(
  tx: PoolClient,
  batch: BatchScope,
  name: ProjectEventName,
  id: number,
  traversalIds: number[],
): Promise<Fired | undefined> {
  const project = await findProject(tx, id);
  if (!project) return undefined;
  const group = await namespaceIn(tx, batch, project.namespace_id);
  // A personal namespace is never in the copies and has no hooks: only a group some hook watches is waited for.
  if (
    !group &&
    name === "project_create" &&
    (await hooksForEvent(tx, traversalIds, "project_events", false)).length
  )
    throw new GroupNotYetKnown(project.namespace_id);
  if (!group || group.kind !== "group") return undefined;
  return {
    groupIds: traversalIds,
    built: buildProjectPayload(
      name,
      hookProjectOf(project),
      hookGroupOf(group),
      project.owners.map(hookUserOf),
    ),
  };
}
