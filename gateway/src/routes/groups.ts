import { auth, type events, type groups } from "@canopy/protos";
import { groupDetailEntity, type GroupShaping } from "../entities/group";
import { userStateName } from "../entities/user";
import { endpoint, type Call } from "../http/endpoint";
import { notFoundError } from "../http/errors";
import { sendJson } from "../http/json";
import { param, type IdOrPath } from "../http/params";
import type { RouteDeps } from "./context";
import { avatarUpload } from "./avatar-upload";
import { detailLdapLinks } from "./group-ldap";
import { detailProjects } from "./group-projects";
import { GroupDetail } from "../entities/schemas";

/** The Groups API's own group routes (GitLab lib/api/groups.rb); lists live in group-lists.ts. */

/** `:id` of the API as the groups service's reference. */
export const groupRef = (id: IdOrPath): groups.GroupRef => ({ id: id.id ?? 0, fullPath: id.path ?? "" });

export const shapingOf = (deps: RouteDeps): GroupShaping => ({
  externalUrl: deps.config.CANOPY_EXTERNAL_URL,
  plan: deps.config.CANOPY_PLAN,
});

/** The caller as the gateway knows them, for a groups service whose copy may lag a new user. */
export const userHint = (u: auth.User | undefined): events.UserSnapshot | undefined =>
  u && {
    userId: u.id,
    username: u.username,
    name: u.name,
    state: userStateName(u.state),
    admin: u.admin,
    external: u.external,
    canCreateGroup: u.canCreateGroup,
    avatarUrl: "",
    email: u.email,
    identities: [],
    publicEmail: u.publicEmail,
  };

/** Attributes POST /groups and PUT /groups/:id share (reference §4.3, §4.4). */
export const groupAttributeParams = {
  description: param.string(10_000).optional(),
  visibility: param.oneOf(["private", "internal", "public"]).optional(),
  share_with_group_lock: param.boolean().optional(),
  require_two_factor_authentication: param.boolean().optional(),
  two_factor_grace_period: param.int32().optional(),
  project_creation_level: param.oneOf(["noone", "maintainer", "developer"]).optional(),
  auto_devops_enabled: param.boolean().optional(),
  subgroup_creation_level: param.oneOf(["owner", "maintainer"]).optional(),
  emails_disabled: param.boolean().optional(),
  mentions_disabled: param.boolean().optional(),
  lfs_enabled: param.boolean().optional(),
  request_access_enabled: param.boolean().optional(),
  default_branch_protection: param.int32().optional(),
  membership_lock: param.boolean().optional(),
  shared_runners_minutes_limit: param.int32().optional(),
  extra_shared_runners_minutes_limit: param.int32().optional(),
};
type GroupAttributeParams = Call<typeof groupAttributeParams>["params"] & { name?: string; path?: string };

export const toGroupAttributes = (p: GroupAttributeParams): groups.GroupAttributes => ({
  name: p.name,
  path: p.path,
  description: p.description,
  visibility: p.visibility,
  shareWithGroupLock: p.share_with_group_lock,
  requireTwoFactorAuthentication: p.require_two_factor_authentication,
  twoFactorGracePeriod: p.two_factor_grace_period,
  projectCreationLevel: p.project_creation_level,
  autoDevopsEnabled: p.auto_devops_enabled,
  subgroupCreationLevel: p.subgroup_creation_level,
  emailsDisabled: p.emails_disabled,
  mentionsDisabled: p.mentions_disabled,
  lfsEnabled: p.lfs_enabled,
  requestAccessEnabled: p.request_access_enabled,
  defaultBranchProtection: p.default_branch_protection,
  membershipLock: p.membership_lock,
  sharedRunnersMinutesLimit: p.shared_runners_minutes_limit,
  extraSharedRunnersMinutesLimit: p.extra_shared_runners_minutes_limit,
});

const showGroupParams = {
  id: param.idOrPath(),
  with_custom_attributes: param.boolean().optional(),
  with_projects: param.boolean().optional(),
};

async function showGroup({ params: p, actor, ctx, deps }: Call<typeof showGroupParams>) {
  // Silently ignored for everyone but administrators (reference §7.22).
  const withCustomAttributes = Boolean(actor.admin && p.with_custom_attributes);
  const detail = await deps.groups.getGroup({
    actor,
    group: groupRef(p.id),
    withCustomAttributes,
    withRunnersToken: true,
  });
  const groupId = detail.group!.id;
  const [projects, ldapGroupLinks] = await Promise.all([
    p.with_projects === false ? undefined : detailProjects(deps, actor, groupId),
    detailLdapLinks(deps, actor, groupId),
  ]);
  const body = groupDetailEntity(detail, shapingOf(deps), {
    withProjects: p.with_projects,
    projects,
    ldapGroupLinks,
  });
  // Asked for by an administrator, the key is there even when the group has none.
  sendJson(
    ctx,
    200,
    withCustomAttributes ? { ...body, custom_attributes: detail.group!.customAttributes } : body,
  );
}

const createGroupParams = {
  name: param.string(10_000),
  path: param.string(10_000),
  parent_id: param.integer().optional(),
  ...groupAttributeParams,
  avatar: param.file().optional(),
};

async function createGroup({ params: p, actor, user, ctx, deps }: Call<typeof createGroupParams>) {
  // GitLab looks parent 0 (and any id that cannot exist) up like any other: 404 (reference §7.11).
  if (p.parent_id !== undefined && p.parent_id <= 0) throw notFoundError("Group");
  const detail = await deps.groups.createGroup({
    actor,
    attributes: toGroupAttributes(p),
    parentId: p.parent_id ?? 0,
    avatar: avatarUpload(p.avatar, { removable: false }),
    creator: userHint(user),
  });
  // A group made a moment ago holds no projects and none is shared to it: the arrays are empty
  // without asking the projects service (whose outage must not fail a group already created).
  sendJson(ctx, 201, groupDetailEntity(detail, shapingOf(deps)));
}

export const groupEndpoints = [
  endpoint({
    method: "GET",
    path: "/groups/:id",
    access: "anonymous",
    params: showGroupParams,
    handler: showGroup,
    cacheAnswers: true,
    responses: { 200: GroupDetail },
  }),
  endpoint({
    method: "POST",
    path: "/groups",
    access: "user",
    params: createGroupParams,
    handler: createGroup,
    responses: { 201: GroupDetail },
  }),
];
