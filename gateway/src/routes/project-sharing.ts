import { z } from "zod";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { unmodifiedSince } from "./group-members";
import { projectRef } from "./projects";
import { ProjectGroupLink } from "../entities/schemas";

/** Sharing a project with a group (GitLab lib/api/projects.rb `share`). */

/** `Gitlab::Access.values`: Guest to Maintainer; anything else "does not have a valid value". */
const groupAccess = param.integer().pipe(z.literal([10, 20, 30, 40]));

/** Grape's optional Date: absent, null or empty is no expiry. */
const expiresAt = z.preprocess((v) => (v === "" || v === null ? undefined : v), param.date().optional());

const shareParams = {
  id: param.idOrPath(),
  group_id: param.integer(),
  group_access: groupAccess,
  expires_at: expiresAt,
};

/** 201 with GitLab's ProjectGroupLink entity. */
async function shareProject({ params: p, actor, ctx, deps }: Call<typeof shareParams>) {
  const link = await deps.projectSharing.shareProject({
    actor,
    project: projectRef(p.id),
    groupId: p.group_id,
    groupAccess: p.group_access,
    expiresAt: p.expires_at ?? "",
  });
  sendJson(ctx, 201, {
    id: link.id,
    project_id: link.projectId,
    group_id: link.groupId,
    group_access: link.groupAccess,
    expires_at: link.expiresAt || null,
  });
}

const unshareParams = { id: param.idOrPath(), group_id: param.integer() };

async function unshareProject({ params: p, actor, ctx, deps }: Call<typeof unshareParams>) {
  await deps.projectSharing.unshareProject({
    actor,
    project: projectRef(p.id),
    groupId: p.group_id,
    unmodifiedSince: unmodifiedSince(ctx.get("If-Unmodified-Since") || undefined),
  });
  ctx.status = 204;
}

export const projectSharingEndpoints = [
  endpoint({
    method: "POST",
    path: "/projects/:id/share",
    access: "user",
    params: shareParams,
    handler: shareProject,
    responses: { 201: ProjectGroupLink },
  }),
  endpoint({
    method: "DELETE",
    path: "/projects/:id/share/:group_id",
    access: "user",
    params: unshareParams,
    handler: unshareProject,
    responses: { 204: null },
  }),
];
