import type { groupEvents } from "@canopy/protos";
import type { NamespaceRow } from "../store/namespaces";

/** A namespace as other contexts copy it (the payload most groups events carry). */
export const namespaceSnapshot = (row: NamespaceRow): groupEvents.NamespaceSnapshot => ({
  id: row.id,
  kind: row.kind,
  parentId: row.parent_id ?? 0,
  traversalIds: row.traversal_ids,
  path: row.path,
  name: row.name,
  fullPath: row.full_path,
  fullName: row.full_name,
  visibilityLevel: row.visibility_level,
  markedForDeletionOn: row.marked_for_deletion_on ?? "",
  ownerId: row.owner_id ?? 0,
  shareWithGroupLock: row.share_with_group_lock,
  projectCreationLevel: row.kind === "group" ? row.project_creation_level : undefined,
});
