import { forbidden, notFound, recordNotFound } from "@canopy/kit";
import type { common, groups, groupCustomAttributes } from "@canopy/protos";
import type { Deps } from "../deps";
import { findNamespaceById, findNamespaceByPath, type NamespaceRow } from "../store/namespaces";
import { findCustomAttribute, findCustomAttributes } from "../store/custom-attributes";

/**
 * The group of a custom attributes call. Only administrators may call (GitLab's global
 * read/update_custom_attribute): everyone else is 403 before any lookup, so nothing about the group
 * leaks; an administrator then gets 404 "Group Not Found" for a group that does not exist.
 */
export async function groupForCustomAttributes(
  deps: Deps,
  actor: common.Actor | undefined,
  ref: groups.GroupRef | undefined,
): Promise<NamespaceRow> {
  if (!actor?.admin) throw forbidden();
  const row = ref?.id
    ? await findNamespaceById(deps.pool, ref.id)
    : ref?.fullPath
      ? await findNamespaceByPath(deps.pool, ref.fullPath)
      : undefined;
  if (!row || row.kind !== "group") throw notFound("Group");
  return row;
}

export async function listCustomAttributes(
  deps: Deps,
  req: groupCustomAttributes.ListCustomAttributesRequest,
): Promise<groupCustomAttributes.ListCustomAttributesResponse> {
  const group = await groupForCustomAttributes(deps, req.actor, req.group);
  return { customAttributes: await findCustomAttributes(deps.pool, group.id) };
}

export async function getCustomAttribute(
  deps: Deps,
  req: groupCustomAttributes.GetCustomAttributeRequest,
): Promise<groups.CustomAttribute> {
  const group = await groupForCustomAttributes(deps, req.actor, req.group);
  const found = await findCustomAttribute(deps.pool, group.id, req.key);
  if (!found) throw recordNotFound();
  return found;
}
