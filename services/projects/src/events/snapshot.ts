import type { projectEvents } from "@canopy/protos";
import type { ProjectRow } from "../store/projects";

/** A project as other contexts copy it (the payload of every projects event). */
export const projectSnapshot = (row: ProjectRow): projectEvents.ProjectSnapshot => ({
  id: row.id,
  name: row.name,
  path: row.path,
  namespaceId: row.namespace_id,
  traversalIds: row.traversal_ids,
  pathWithNamespace: `${row.ns_full_path}/${row.path}`,
  nameWithNamespace: `${row.ns_full_name} / ${row.name}`,
  visibilityLevel: row.visibility_level,
  archived: row.archived,
  creatorId: row.creator_id,
  markedForDeletionOn: row.marked_for_deletion_on ?? "",
});
