/**
 * The projects service's events as the groups service receives them, for tests that run no projects
 * service: each is recorded in the groups service's own outbox (the kit's recordEvent, as the
 * projects service records it), so its relay puts it on the run's stream and the groups service's
 * real durable consumers apply it. `publish` waits until the consumer has applied it.
 */
import { randomInt } from "node:crypto";
import { recordEvent, withTransaction, type EventKind } from "@canopy/kit";
import { waitFor } from "@canopy/kit/testing";
import { PROJECTS_EVENTS, type projectEvents } from "@canopy/protos";
import type { Harness } from "./support";

/** Which durable consumer applies each subject's events (src/events). */
const consumerOf = (subject: string) =>
  subject.startsWith("canopy.projects.member.")
    ? "groups-project-members"
    : subject.startsWith("canopy.projects.share.")
      ? "groups-project-shares"
      : "groups-projects";

export async function publish<T>(h: Harness, kind: EventKind<T>, payload: T): Promise<void> {
  const id = await withTransaction(h.groupsService.pool, (tx) => recordEvent(tx, kind, payload));
  const consumer = consumerOf(kind.subject);
  await waitFor(
    `${kind.type} to be applied by ${consumer}`,
    async () =>
      (
        await h.db.query("SELECT 1 FROM processed_events WHERE consumer = $1 AND event_id = $2", [
          consumer,
          id,
        ])
      ).rowCount === 1,
    15_000,
  );
}

/** A project id no other test uses (the copies share one schema). */
export const projectId = () => 1_000_000_000 + randomInt(1_000_000_000);

export const snapshotOf = (
  id: number,
  namespaceId: number,
  path = `p${id}`,
): projectEvents.ProjectSnapshot => ({
  id,
  name: path,
  path,
  namespaceId,
  traversalIds: [],
  pathWithNamespace: "",
  nameWithNamespace: "",
  visibilityLevel: 0,
  archived: false,
  creatorId: 0,
  markedForDeletionOn: "",
});

/** A private project in the namespace (ProjectCreated). */
export async function createProject(h: Harness, namespaceId: number): Promise<number> {
  const id = projectId();
  await publish(h, PROJECTS_EVENTS.projectCreated, { project: snapshotOf(id, namespaceId) });
  return id;
}

const membership = (projectId: number, userId: number, accessLevel: number, expiresAt = "") => ({
  projectId,
  userId,
  accessLevel,
  expiresAt,
  createdById: 0,
});

export const addProjectMember = (h: Harness, project: number, userId: number, level = 30, expiresAt = "") =>
  publish(h, PROJECTS_EVENTS.memberAdded, { member: membership(project, userId, level, expiresAt) });

export const updateProjectMember = (
  h: Harness,
  project: number,
  userId: number,
  level: number,
  expiresAt: string,
) =>
  publish(h, PROJECTS_EVENTS.memberUpdated, {
    member: membership(project, userId, level, expiresAt),
    oldAccessLevel: 0,
    oldExpiresAt: "",
  });

export const removeProjectMember = (h: Harness, project: number, userId: number) =>
  publish(h, PROJECTS_EVENTS.memberRemoved, { member: membership(project, userId, 30) });

export const shareProject = (h: Harness, project: number, groupId: number, expiresAt = "") =>
  publish(h, PROJECTS_EVENTS.projectShared, { projectId: project, groupId, groupAccess: 30, expiresAt });

export const unshareProject = (h: Harness, project: number, groupId: number) =>
  publish(h, PROJECTS_EVENTS.projectUnshared, { projectId: project, groupId });

export const moveProject = (h: Harness, project: number, namespaceId: number) =>
  publish(h, PROJECTS_EVENTS.projectTransferred, {
    project: snapshotOf(project, namespaceId),
    oldNamespaceId: 0,
    oldPathWithNamespace: "",
  });

export const removeProject = (h: Harness, project: number, namespaceId: number) =>
  publish(h, PROJECTS_EVENTS.projectRemoved, { project: snapshotOf(project, namespaceId) });
