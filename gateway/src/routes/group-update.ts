import { groupDetailWithProjects } from "./group-projects";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { avatarUpload } from "./avatar-upload";
import { groupAttributeParams, groupRef, toGroupAttributes } from "./groups";
import { GroupDetail } from "../entities/schemas";

/** PUT /groups/:id and the group's avatar as a file (GitLab lib/api/groups.rb, reference §4.4, §4.15). */

const updateGroupParams = {
  id: param.idOrPath(),
  name: param.string(10_000).optional(),
  path: param.string(10_000).optional(),
  ...groupAttributeParams,
  avatar: param.file().optional(),
  file_template_project_id: param.integer().optional(),
  prevent_forking_outside_group: param.boolean().optional(),
  shared_runners_setting: param
    .oneOf(["enabled", "disabled_with_override", "disabled_and_unoverridable", "disabled_and_overridable"])
    .optional(),
  prevent_sharing_groups_outside_hierarchy: param.boolean().optional(),
  // Not in GitLab's API (its group settings page sets it); top-level groups only. See README.
  allow_mfa_for_subgroups: param.boolean().optional(),
};

async function updateGroup({ params: p, actor, ctx, deps }: Call<typeof updateGroupParams>) {
  const detail = await deps.groups.updateGroup({
    actor,
    group: groupRef(p.id),
    attributes: {
      ...toGroupAttributes(p),
      fileTemplateProjectId: p.file_template_project_id,
      preventForkingOutsideGroup: p.prevent_forking_outside_group,
      sharedRunnersSetting: p.shared_runners_setting,
      preventSharingGroupsOutsideHierarchy: p.prevent_sharing_groups_outside_hierarchy,
      allowMfaForSubgroups: p.allow_mfa_for_subgroups,
    },
    avatar: avatarUpload(p.avatar, { removable: true }),
  });
  sendJson(ctx, 200, await groupDetailWithProjects(deps, actor, detail));
}

const avatarParams = { id: param.idOrPath() };

/** The avatar as an attachment (14.0+); GitLab answers 404 "Avatar Not Found" without one. */
async function downloadAvatar({ params: p, actor, ctx, deps }: Call<typeof avatarParams>) {
  const avatar = await deps.groupAvatars.getAvatar({ actor, group: groupRef(p.id), filename: "" });
  ctx.status = 200;
  ctx.set({
    "Content-Type": avatar.contentType,
    "Content-Disposition": `attachment; filename="${avatar.filename}"`,
  });
  ctx.body = Buffer.from(avatar.content);
}

export const groupUpdateEndpoints = [
  endpoint({
    method: "PUT",
    path: "/groups/:id",
    access: "user",
    params: updateGroupParams,
    handler: updateGroup,
    responses: { 200: GroupDetail },
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/avatar",
    access: "anonymous",
    params: avatarParams,
    handler: downloadAvatar,
    responses: { 200: "file" },
  }),
];
