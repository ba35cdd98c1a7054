import type { groupProjectEvents, projectEvents } from "@canopy/protos";
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

/**
 * A project's storage figures as the groups service sums them. Canopy hosts no repositories, wikis,
 * artifacts or packages: every size is 0, reported once when the project is created.
 */
export const emptyStatistics = (row: ProjectRow): groupProjectEvents.ProjectStatistics => ({
  projectId: row.id,
  namespaceId: row.namespace_id,
  storageSize: 0,
  repositorySize: 0,
  wikiSize: 0,
  lfsObjectsSize: 0,
  jobArtifactsSize: 0,
  packagesSize: 0,
  snippetsSize: 0,
  pipelineArtifactsSize: 0,
  uploadsSize: 0,
});
