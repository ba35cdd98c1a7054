import {
  customAttributeErrors,
  invalid,
  recordEvent,
  recordNotFound,
  requireSignedIn,
  withTransaction,
} from "@canopy/kit";
import { GROUPS_EVENTS, type groups, type groupCustomAttributes } from "@canopy/protos";
import type { Deps } from "../deps";
import { groupForCustomAttributes } from "../finders/custom-attributes";
import { deleteCustomAttribute, upsertCustomAttribute } from "../store/custom-attributes";

/**
 * PUT /groups/:id/custom_attributes/:key (reference §4.16): administrators only; creates or
 * updates, answering the attribute (200 either way). Blank or oversized keys and values are GitLab's
 * model errors (400 keyed by attribute).
 */
export async function setCustomAttribute(
  deps: Deps,
  req: groupCustomAttributes.SetCustomAttributeRequest,
): Promise<groups.CustomAttribute> {
  const actor = requireSignedIn(req.actor);
  const group = await groupForCustomAttributes(deps, actor, req.group);
  const errors = customAttributeErrors(req.key, req.value);
  if (Object.keys(errors).length) throw invalid(errors);
  return withTransaction(deps.pool, async (tx) => {
    const saved = await upsertCustomAttribute(tx, group.id, req.key, req.value);
    await recordEvent(
      tx,
      GROUPS_EVENTS.customAttributeSet,
      { groupId: group.id, key: saved.key, value: saved.value },
      actor,
    );
    return saved;
  });
}

/** DELETE /groups/:id/custom_attributes/:key: administrators only; a missing key is "404 Not found". */
export async function removeCustomAttribute(
  deps: Deps,
  req: groupCustomAttributes.DeleteCustomAttributeRequest,
): Promise<groupCustomAttributes.DeleteCustomAttributeResponse> {
  const actor = requireSignedIn(req.actor);
  const group = await groupForCustomAttributes(deps, actor, req.group);
  await withTransaction(deps.pool, async (tx) => {
    const removed = await deleteCustomAttribute(tx, group.id, req.key);
    if (!removed) throw recordNotFound();
    await recordEvent(
      tx,
      GROUPS_EVENTS.customAttributeRemoved,
      { groupId: group.id, key: removed.key },
      actor,
    );
  });
  return {};
}
