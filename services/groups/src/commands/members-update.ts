import { forbidden, invalid, recordEvent, recordNotFound, withTransaction } from "@canopy/kit";
import { GROUPS_EVENTS, type groupMembers } from "@canopy/protos";
import { isLastOwner, mayGrant } from "../domain/members";
import type { Deps } from "../deps";
import { directMember } from "../finders/members";
import { countOtherOwners, findMembership, updateMembership } from "../store/members";
import { validate } from "./members-add";
import { groupForMemberWrite, lockTreeOfGroup, membershipOf, requireMemberAdmin } from "./members-common";

/**
 * PUT /groups/:id/members/:user_id (reference §4.17): group visible (404), caller manages members
 * (403), a direct member (404 "Not found"), not the last Owner (403), then the model's validations
 * (400). An event only when the level or the expiry really changed.
 */
export async function updateMember(
  deps: Deps,
  req: groupMembers.UpdateMemberRequest,
): Promise<groupMembers.Member> {
  const { actor, group } = await groupForMemberWrite(deps, req.actor, req.group);
  requireMemberAdmin(group);
  if (!(await findMembership(deps.pool, group.row.id, req.userId))) throw recordNotFound();
  if (!mayGrant(group.access, req.accessLevel)) throw forbidden();
  await withTransaction(deps.pool, async (tx) => {
    const row = await lockTreeOfGroup(tx, group.row.id);
    const member = row && (await findMembership(tx, row.id, req.userId));
    if (!row || !member) throw recordNotFound();
    const others = await countOtherOwners(tx, row.traversal_ids, member.id);
    if (isLastOwner({ accessLevel: member.access_level }, others)) throw forbidden();
    const expiresAt = req.clearExpiresAt ? null : req.expiresAt || member.expires_at;
    // Only a changed date is validated: an old one may lie in the past by now.
    const changedDate = expiresAt !== member.expires_at ? (expiresAt ?? "") : "";
    const errors = await validate(deps, tx, { ...group, row }, req.userId, req.accessLevel, changedDate);
    if (Object.keys(errors).length) throw invalid(errors);
    if (req.accessLevel === member.access_level && expiresAt === member.expires_at) return;
    const updated = await updateMembership(tx, member.id, { accessLevel: req.accessLevel, expiresAt });
    if (!updated) throw recordNotFound();
    await recordEvent(
      tx,
      GROUPS_EVENTS.memberUpdated,
      {
        member: membershipOf(updated),
        oldAccessLevel: member.access_level,
        oldExpiresAt: member.expires_at ?? "",
      },
      actor,
    );
  });
  return directMember(deps, actor, group.row.id, req.userId);
}
