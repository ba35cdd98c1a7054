import {
  addFieldError,
  apiError,
  type FieldErrors,
  forbidden,
  grpcStatus,
  isVisibilityName,
  notFound,
  OWNER,
  eventOf,
  recordEventList,
  requireSignedIn,
  rubyInspect,
  visibilityLevelOf,
  visibilityNameOf,
  withTransaction,
} from "@canopy/kit";
import { GROUPS_EVENTS, type groups } from "@canopy/protos";
import { abilities } from "../domain/access";
import { settingsFrom } from "../domain/group-attributes";
import { MAX_NESTING, pathErrors, TAKEN } from "../domain/group-rules";
import { TWO_FACTOR_FORBIDDEN } from "../domain/tree-settings";
import { rootAllowsTwoFactor } from "../store/group-updates";
import type { Deps } from "../deps";
import { namespaceSnapshot } from "../events/snapshot";
import { groupDetail, resolveGroup } from "../finders/groups";
import { insertMember } from "../store/members";
import { copyAncestorPushRule } from "./push-rules";
import { putAvatar } from "../store/avatars";
import { avatarContentType, avatarErrors, avatarFilename } from "@canopy/kit";
import { newRunnersToken, sealRunnersToken } from "../domain/runners-token";
import { insertGroup, lockTreesOf, newGroupPlace } from "../store/namespaces";
import { findUserOrKeep, userRowOf } from "../store/users";

/** Creation errors are one string, unlike update's hash (reference §4.3, §7.9). */
const failed = (errors: FieldErrors) =>
  apiError(400, `Failed to save group ${rubyInspect(errors)}`, grpcStatus.INVALID_ARGUMENT);

/**
 * POST /groups (reference §4.3): a top-level group or, with `parentId`, a subgroup. Checks in
 * GitLab's order: parent visible (404), may create there (403), then the model's validations (400).
 * The creator becomes the group's Owner in the same transaction.
 */
export async function createGroup(deps: Deps, req: groups.CreateGroupRequest): Promise<groups.GroupDetail> {
  const actor = requireSignedIn(req.actor);
  // Known from auth's events or the gateway's hint; a user this service has never heard of cannot own.
  const creator = await findUserOrKeep(deps.pool, actor.userId, req.creator && userRowOf(req.creator));
  if (!creator) throw notFound("User");
  const parent = req.parentId
    ? await resolveGroup(deps, actor, { id: req.parentId, fullPath: "" })
    : undefined;
  if (parent) {
    if (
      !abilities(parent.access, { subgroupCreationLevel: parent.row.subgroup_creation_level }).createSubgroup
    )
      throw forbidden();
  } else if (!actor.admin && !creator.can_create_group) {
    throw forbidden();
  }
  const { settings, errors } = settingsFrom(req.attributes);
  // Set on the group's settings page only: GitLab's CreateService drops it.
  delete settings.allow_mfa_for_subgroups;
  pathErrors(settings.path, !parent, errors);
  const visibility = req.attributes?.visibility ?? deps.settings.current().defaultGroupVisibility;
  const level = isVisibilityName(visibility) ? visibilityLevelOf(visibility) : 0;
  if (parent && level > parent.row.visibility_level)
    addFieldError(
      errors,
      "visibility_level",
      `${visibilityNameOf(level)} is not allowed since the parent group has a ${visibilityNameOf(parent.row.visibility_level)} visibility.`,
    );
  if (
    parent &&
    settings.require_two_factor_authentication &&
    !(await rootAllowsTwoFactor(deps.pool, parent.row.traversal_ids[0]!))
  )
    addFieldError(errors, "require_two_factor_authentication", TWO_FACTOR_FORBIDDEN);
  if (parent && parent.row.traversal_ids.length >= MAX_NESTING)
    addFieldError(errors, "parent_id", "has too deep level of nesting");
  const avatarProblems =
    req.avatar?.content.length && !req.avatar.remove ? avatarErrors(req.avatar.content) : [];
  if (avatarProblems.length) errors.avatar = avatarProblems;
  if (Object.keys(errors).length) throw failed(errors);

  const row = await withTransaction(deps.pool, async (tx) => {
    const lockedParent = parent ? (await lockTreesOf(tx, [parent.row.id]))[0] : undefined;
    if (parent && !lockedParent) throw notFound("Group");
    const fullPath = lockedParent ? `${lockedParent.full_path}/${settings.path}` : settings.path!;
    const place = await newGroupPlace(tx, fullPath, lockedParent?.id, settings.path!);
    if (place.taken) throw failed({ path: [TAKEN] });
    // Checked above too (with the other errors); again under the lock, as the root may have changed.
    if (
      lockedParent &&
      settings.require_two_factor_authentication &&
      !(await rootAllowsTwoFactor(tx, lockedParent.traversal_ids[0]!))
    )
      throw failed({ require_two_factor_authentication: [TWO_FACTOR_FORBIDDEN] });
    const created = await insertGroup(
      tx,
      lockedParent,
      {
        ...settings,
        path: settings.path!,
        name: settings.name!,
        visibility_level: level,
        // A subgroup of a locked group is locked (reference §7.25).
        share_with_group_lock: lockedParent?.share_with_group_lock || settings.share_with_group_lock,
        // GitLab makes a group's runners token as it creates the group.
        runners_token_encrypted: sealRunnersToken(deps.runnersTokenKeys, place.id, newRunnersToken()),
      },
      place.id,
    );
    if (req.avatar?.content.length && !req.avatar.remove) {
      const filename = avatarFilename(req.avatar.filename);
      const { content } = req.avatar;
      await putAvatar(tx, {
        namespaceId: created.id,
        filename,
        contentType: avatarContentType(content)!,
        content,
      });
      created.avatar_filename = filename;
    }
    const owner = await insertMember(tx, {
      namespaceId: created.id,
      userId: actor.userId,
      accessLevel: OWNER,
      createdById: actor.userId,
    });
    await recordEventList(
      tx,
      [
        eventOf(GROUPS_EVENTS.groupCreated, { group: namespaceSnapshot(created), creatorId: actor.userId }),
        eventOf(GROUPS_EVENTS.memberAdded, {
          member: {
            groupId: created.id,
            userId: owner.user_id,
            accessLevel: owner.access_level,
            expiresAt: "",
            createdById: actor.userId,
          },
        }),
      ],
      actor,
    );
    if (lockedParent) await copyAncestorPushRule(deps, tx, created, actor);
    return created;
  });
  return groupDetail(deps, actor, { row, access: OWNER });
}
