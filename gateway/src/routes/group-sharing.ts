import { z } from "zod";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { groupDetailWithProjects } from "./group-projects";
import { groupRef } from "./groups";
import { GroupDetail } from "../entities/schemas";

/** Group sharing (GitLab lib/api/groups.rb `share`, reference §4.13–4.14). */

/** `Gitlab::Access.all_values`: an integer outside it "does not have a valid value". */
const groupAccess = param.integer().pipe(z.literal([10, 20, 30, 40, 50]));

/** Grape's optional Date: absent, null (python-gitlab sends it) or empty is no expiry. */
const expiresAt = z.preprocess((v) => (v === "" || v === null ? undefined : v), param.date().optional());

const shareParams = {
  id: param.idOrPath(),
  group_id: param.integer(),
  group_access: groupAccess,
  expires_at: expiresAt,
};

/** 201 with the shared group's detail; refusals come from the service (404 "Not Found", 409). */
async function shareGroup({ params: p, actor, ctx, deps }: Call<typeof shareParams>) {
  const detail = await deps.groupSharing.shareGroup({
    actor,
    group: groupRef(p.id),
    sharedWithGroupId: p.group_id,
    groupAccess: p.group_access,
    expiresAt: p.expires_at ?? "",
  });
  sendJson(ctx, 201, await groupDetailWithProjects(deps, actor, detail));
}

const unshareParams = { id: param.idOrPath(), group_id: param.integer() };

/** 204 whether or not the caller could remove the link: GitLab ignores a refused removal. */
async function unshareGroup({ params: p, actor, ctx, deps }: Call<typeof unshareParams>) {
  await deps.groupSharing.unshareGroup({ actor, group: groupRef(p.id), sharedWithGroupId: p.group_id });
  ctx.status = 204;
}

export const groupSharingEndpoints = [
  endpoint({
    method: "POST",
    path: "/groups/:id/share",
    access: "user",
    params: shareParams,
    handler: shareGroup,
    responses: { 201: GroupDetail },
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/share/:group_id",
    access: "user",
    params: unshareParams,
    handler: unshareGroup,
    responses: { 204: null },
  }),
];
