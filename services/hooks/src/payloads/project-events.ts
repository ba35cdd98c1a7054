/**
 * `project_create` and `project_destroy` for group hooks (17.6+, lib/gitlab/hook_data/
 * project_builder.rb). The documented keys plus `owner_name` and `owner_email`, which the builder
 * also sends: for a project in a group the "owner" is the group, so `owner_email` is "" (a group
 * has no email). `owners` are the group's owners, inherited ones included, each with their public
 * email or `[REDACTED]`.
 */
import { REDACTED } from "@canopy/kit";
import { xmlschema } from "./dates";
import { built } from "./triggers";
import type { BuiltHookPayload, HookGroup, HookProject, HookUser, ProjectVisibility } from "./types";

export type ProjectEventName = "project_create" | "project_destroy";

export interface ProjectPayload {
  event_name: ProjectEventName;
  created_at: string;
  updated_at: string;
  name: string;
  path: string;
  path_with_namespace: string;
  project_id: number;
  project_namespace_id: number | null;
  owner_name: string;
  owner_email: string;
  owners: { name: string; email: string }[];
  project_visibility: ProjectVisibility;
}

/** A user's email as payloads show it to receivers (User#webhook_email). */
export const webhookEmail = (user: HookUser) => user.publicEmail || REDACTED;

export function buildProjectPayload(
  eventName: ProjectEventName,
  project: HookProject,
  group: HookGroup,
  owners: HookUser[],
): BuiltHookPayload<ProjectPayload> {
  return built("project_hooks", {
    event_name: eventName,
    created_at: xmlschema(project.createdAt),
    updated_at: xmlschema(project.updatedAt),
    name: project.name,
    path: project.path,
    path_with_namespace: project.pathWithNamespace,
    project_id: project.id,
    project_namespace_id: project.projectNamespaceId ?? null,
    owner_name: group.name,
    owner_email: "",
    owners: owners.map((owner) => ({ name: owner.name, email: webhookEmail(owner) })),
    project_visibility: project.visibility,
  });
}
