import { visibilityNameOf } from "@canopy/kit";
import type { projects } from "@canopy/protos";
import { settingsView } from "../domain/project-settings";
import type { ProjectAccess } from "../store/access";
import type { ProjectRow } from "../store/projects";

/** What the caller is to a project, as the views show it. */
export interface CallerView extends ProjectAccess {
  starred: boolean;
}

export const NO_ACCESS: CallerView = {
  access_level: 0,
  project_access_level: 0,
  group_access_level: 0,
  starred: false,
};

/** A project row as the proto carries it; `sharedWithGroups` only where the answer shows them. */
export function toProject(
  row: ProjectRow,
  caller: CallerView = NO_ACCESS,
  sharedWithGroups: projects.SharedWithGroup[] = [],
): projects.Project {
  const view = settingsView(row);
  return {
    id: row.id,
    name: row.name,
    path: row.path,
    description: row.description ?? undefined,
    namespace: {
      id: row.namespace_id,
      name: row.ns_name,
      path: row.ns_path,
      kind: row.ns_kind,
      fullPath: row.ns_full_path,
      fullName: row.ns_full_name,
      parentId: row.ns_parent_id ?? 0,
      ownerId: row.ns_owner_id ?? 0,
      ownerUsername: row.owner_username ?? "",
      ownerName: row.owner_name ?? "",
      ownerState: row.owner_state ?? "",
      ownerAvatarUrl: row.owner_avatar_url ?? "",
    },
    visibility: visibilityNameOf(row.visibility_level),
    archived: row.archived,
    defaultBranch: row.default_branch ?? undefined,
    topics: row.topics,
    creatorId: row.creator_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastActivityAt: row.last_activity_at,
    starCount: row.star_count,
    accessLevels: view.accessLevels,
    flags: view.flags,
    texts: view.texts,
    numbers: view.numbers,
    sharedWithGroups,
    markedForDeletionOn: row.marked_for_deletion_on ?? "",
    accessLevel: caller.access_level,
    projectAccessLevel: caller.project_access_level,
    groupAccessLevel: caller.group_access_level,
    starred: caller.starred,
  };
}
