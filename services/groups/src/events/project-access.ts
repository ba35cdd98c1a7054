import { payloadOf, type ConsumerDefinition, type PoolClient } from "@canopy/kit";
import { PROJECTS_EVENTS, type events } from "@canopy/protos";
import type { Deps } from "../deps";
import {
  deleteProjectMember,
  deleteProjectShare,
  upsertProjectMember,
  upsertProjectShare,
} from "../store/project-access";
import { copiesChanged } from "./copies-changed";

/*
 * Keeps the copies of who sees a project through the project itself (migration 0013) in step with
 * the projects service's events, for GitLab's has_projects (store/access.ts, projectNamespacesSql).
 * Two durable consumers, one per subject (nats-server 2.9 filters a consumer on one subject), each
 * reading the stream from its start: a service upgraded to this version still meets every
 * membership and share the stream holds, and the projects service republishes a snapshot of each
 * once for older ones (its migration 0008: ProjectMemberRepublished, ProjectShareRepublished),
 * applied as upserts any number of times. A change records GroupCopiesChanged for answer caches.
 */

export const projectMembersConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "groups-project-members",
  subjects: ["canopy.projects.member.>"],
  handle: async (event, tx) => {
    if (await applyProjectMemberEvent(deps, event, tx)) await copiesChanged(tx, event);
  },
});

export const projectSharesConsumer = (deps: Deps): ConsumerDefinition => ({
  name: "groups-project-shares",
  subjects: ["canopy.projects.share.>"],
  handle: async (event, tx) => {
    if (await applyProjectShareEvent(deps, event, tx)) await copiesChanged(tx, event);
  },
});

/** Applies a project membership event; answers whether the copy changed. */
export async function applyProjectMemberEvent(
  deps: Deps,
  event: events.Event,
  tx: PoolClient,
): Promise<boolean> {
  const member =
    payloadOf(event, PROJECTS_EVENTS.memberAdded)?.member ??
    payloadOf(event, PROJECTS_EVENTS.memberUpdated)?.member ??
    payloadOf(event, PROJECTS_EVENTS.memberRepublished)?.member;
  if (member) return upsertProjectMember(tx, member);
  const removed = payloadOf(event, PROJECTS_EVENTS.memberRemoved)?.member;
  if (removed) return deleteProjectMember(tx, removed.projectId, removed.userId);
  deps.log.debug({ type: event.type }, "project member event not used by groups");
  return false;
}

/** Applies a project share event; answers whether the copy changed. */
export async function applyProjectShareEvent(
  deps: Deps,
  event: events.Event,
  tx: PoolClient,
): Promise<boolean> {
  const shared =
    payloadOf(event, PROJECTS_EVENTS.projectShared) ??
    payloadOf(event, PROJECTS_EVENTS.shareRepublished)?.share;
  if (shared) return upsertProjectShare(tx, shared);
  const unshared = payloadOf(event, PROJECTS_EVENTS.projectUnshared);
  if (unshared) return deleteProjectShare(tx, unshared.projectId, unshared.groupId);
  deps.log.debug({ type: event.type }, "project share event not used by groups");
  return false;
}
