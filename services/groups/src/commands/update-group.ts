import {
  addFieldError,
  type FieldErrors,
  forbidden,
  invalid,
  notFound,
  OWNER,
  planFeatures,
  type PoolClient,
  recordEvent,
  requireSignedIn,
  withTransaction,
} from "@canopy/kit";
import { GROUPS_EVENTS, type common, type groups } from "@canopy/protos";
import { abilities } from "../domain/access";
import { avatarContentType, avatarErrors, avatarFilename } from "@canopy/kit";
import { settingsFrom, type GroupSettings } from "../domain/group-attributes";
import { pathErrors, TAKEN } from "../domain/group-rules";
import {
  applicableAttributes,
  changedSettings,
  SHARE_LOCK_REFUSED,
  shareLockRefused,
  sharedRunnersError,
  visibilityErrors,
} from "../domain/group-update";
import {
  MFA_SETTING_TOP_LEVEL_ONLY,
  sharedRunnersBelow,
  TWO_FACTOR_FORBIDDEN,
} from "../domain/tree-settings";
import type { Deps } from "../deps";
import { namespaceSnapshot } from "../events/snapshot";
import { highestProjectVisibility, projectPathTaken } from "../store/projects";
import { callerAccess, groupDetail, resolveGroup } from "../finders/groups";
import { putAvatar, removeAvatar } from "../store/avatars";
import {
  closeSharedRunnersBelow,
  disallowTwoFactor,
  highestChildVisibility,
  lockSharingBelow,
  lockTreeOfGroup,
  rewriteDescendantRoutes,
  rootAllowsTwoFactor,
  updateGroupColumns,
} from "../store/group-updates";
import { findNamespaceById, fullPathTaken, type NamespaceRow } from "../store/namespaces";

/**
 * PUT /groups/:id (reference §4.4): visible (404), admin_group (403), then GitLab's checks in its
 * order — the service's early refusals (share lock, shared runners) alone, then the model's
 * validations all at once — each answered 400 in the attribute-keyed shape. Everything is decided
 * and written under the lock of the group's root, so a concurrent rename, transfer or subgroup
 * creation sees either all of this update or none of it. An update that changes nothing is a
 * 200 that records no event.
 */
export async function updateGroup(deps: Deps, req: groups.UpdateGroupRequest): Promise<groups.GroupDetail> {
  const actor = requireSignedIn(req.actor);
  const found = await resolveGroup(deps, actor, req.group);
  if (!abilities(found.access, { subgroupCreationLevel: found.row.subgroup_creation_level }).admin)
    throw forbidden();
  const { attributes, forbidden: refused } = applicableAttributes(req.attributes ?? {}, {
    tier: planFeatures(deps.config.CANOPY_PLAN),
    topLevel: found.row.parent_id === null,
    admin: actor.admin,
  });
  if (refused) throw forbidden();

  const row = await withTransaction(deps.pool, async (tx) => {
    const before = await lockTreeOfGroup(tx, found.row.id);
    if (!before) throw notFound("Group");
    const parent = before.parent_id ? await findNamespaceById(tx, before.parent_id) : undefined;
    await refuseEarly(tx, actor, attributes, before, parent);
    const { settings, changed, avatar } = await validated(tx, attributes, req.avatar, before, parent);

    const path = settings.path ?? before.path;
    const name = settings.name ?? before.name;
    const routes = {
      fullPath: parent ? `${parent.full_path}/${path}` : path,
      fullName: parent ? `${parent.full_name} / ${name}` : name,
    };
    const renamed = routes.fullPath !== before.full_path || routes.fullName !== before.full_name;
    if (Object.keys(settings).length)
      await updateGroupColumns(tx, before.id, {
        ...settings,
        ...(renamed ? { full_path: routes.fullPath, full_name: routes.fullName } : {}),
      });
    if (renamed)
      await rewriteDescendantRoutes(
        tx,
        before.traversal_ids,
        { fullPath: before.full_path, fullName: before.full_name },
        routes,
      );
    if (settings.share_with_group_lock === true) await lockSharingBelow(tx, before.traversal_ids);
    const runnersBelow = sharedRunnersBelow(
      settings.shared_runners_setting,
      before.shared_runners_setting === "enabled",
    );
    if (runnersBelow) await closeSharedRunnersBelow(tx, before.traversal_ids, runnersBelow);
    if (settings.allow_mfa_for_subgroups === false)
      await disallowTwoFactor(tx, before.traversal_ids, { withSelf: false });
    const avatarChanged = await writeAvatar(tx, before, avatar);
    if (avatarChanged) changed.push("avatar");
    if (!changed.length) return before;
    const current = (await findNamespaceById(tx, before.id))!;
    await recordEvent(
      tx,
      GROUPS_EVENTS.groupUpdated,
      {
        group: namespaceSnapshot(current),
        changed,
        oldFullPath: renamed ? before.full_path : "",
      },
      actor,
    );
    return current;
  });
  return groupDetail(deps, actor, { row, access: found.access }, { withRunnersToken: true });
}

/**
 * GitLab's UpdateService refuses these before it validates the model, each answered on its own:
 * a share lock the parent imposes, and shared runners the parent disabled without override.
 */
async function refuseEarly(
  tx: PoolClient,
  actor: common.Actor,
  a: groups.GroupAttributes,
  group: NamespaceRow,
  parent: NamespaceRow | undefined,
) {
  const parentOwner = async () =>
    parent ? (await callerAccess(tx, actor, parent)).accessLevel >= OWNER : false;
  if (
    parent?.share_with_group_lock &&
    shareLockRefused(a.shareWithGroupLock, group.share_with_group_lock, {
      locked: true,
      callerOwnsIt: await parentOwner(),
    })
  )
    throw invalid({ share_with_group_lock: [SHARE_LOCK_REFUSED] });
  const runners = sharedRunnersError(a.sharedRunnersSetting, parent?.shared_runners_setting);
  if (runners) throw invalid({ update_shared_runners: [runners] });
}

type AvatarChange =
  { remove: true } | { filename: string; contentType: string; content: Uint8Array } | undefined;

/** The model's validations, all at once; the columns that change and the names of what changed. */
async function validated(
  tx: PoolClient,
  a: groups.GroupAttributes,
  upload: groups.AvatarUpload | undefined,
  group: NamespaceRow,
  parent: NamespaceRow | undefined,
) {
  // GitLab checks the name's format and the path's length only when they change.
  const given = {
    ...a,
    name: a.name === group.name ? undefined : a.name,
    path: a.path === group.path ? undefined : a.path,
  };
  const { settings, errors } = settingsFrom(given);
  if (given.path !== undefined) pathErrors(given.path, !parent, errors);
  if (settings.visibility_level !== undefined && settings.visibility_level !== group.visibility_level)
    visibilityErrors(
      settings.visibility_level,
      parent?.visibility_level,
      await highestChildVisibility(tx, group.id),
      errors,
      await highestProjectVisibility(tx, group.id),
    );
  if (parent) await subgroupTwoFactorErrors(tx, settings, group, errors);
  const avatar = avatarChange(upload, errors);
  if (given.path !== undefined && !errors.path) {
    const fullPath = parent ? `${parent.full_path}/${given.path}` : given.path;
    // Projects and subgroups share the parent's routes.
    if (
      (await fullPathTaken(tx, fullPath, group.id)) ||
      (parent && (await projectPathTaken(tx, parent.id, given.path)))
    )
      addFieldError(errors, "path", TAKEN);
  }
  if (Object.keys(errors).length) throw invalid(errors satisfies FieldErrors);
  const { changed, columns } = changedSettings(group as unknown as Record<string, unknown>, settings);
  return { settings: columns, changed, avatar };
}

/**
 * On a subgroup: `allow_mfa_for_subgroups` may not be turned off (true is its only value, dropped),
 * and requiring 2FA is refused while the top-level group forbids it — checked on the value the group
 * will have, changed or not, as GitLab's validation is.
 */
async function subgroupTwoFactorErrors(
  tx: PoolClient,
  settings: GroupSettings,
  group: NamespaceRow,
  errors: FieldErrors,
) {
  if (settings.allow_mfa_for_subgroups === false)
    addFieldError(errors, "allow_mfa_for_subgroups", MFA_SETTING_TOP_LEVEL_ONLY);
  delete settings.allow_mfa_for_subgroups;
  const requires = settings.require_two_factor_authentication ?? group.require_two_factor_authentication;
  if (requires && !(await rootAllowsTwoFactor(tx, group.traversal_ids[0]!)))
    addFieldError(errors, "require_two_factor_authentication", TWO_FACTOR_FORBIDDEN);
}

function avatarChange(upload: groups.AvatarUpload | undefined, errors: FieldErrors): AvatarChange {
  if (!upload) return undefined;
  if (upload.remove) return { remove: true };
  const problems = avatarErrors(upload.content);
  if (problems.length) {
    errors.avatar = problems;
    return undefined;
  }
  return {
    filename: avatarFilename(upload.filename),
    contentType: avatarContentType(upload.content)!,
    content: upload.content,
  };
}

async function writeAvatar(tx: PoolClient, group: NamespaceRow, avatar: AvatarChange): Promise<boolean> {
  if (!avatar) return false;
  if ("remove" in avatar) return removeAvatar(tx, group.id);
  await putAvatar(tx, { namespaceId: group.id, ...avatar });
  return true;
}
