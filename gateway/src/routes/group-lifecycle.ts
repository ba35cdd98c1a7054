import { endpoint, type Call } from "../http/endpoint";
import { notFoundError } from "../http/errors";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { groupDetailWithProjects } from "./group-projects";
import { groupRef } from "./groups";
import { Accepted, GroupDetail } from "../entities/schemas";

/** DELETE /groups/:id, POST /groups/:id/restore and /transfer (GitLab lib/api/groups.rb, EE too). */

const deleteGroupParams = {
  id: param.idOrPath(),
  permanently_remove: param.boolean().optional(),
  full_path: param.string(10_000).optional(),
};

/** The If-Unmodified-Since header as GitLab reads it: a date it cannot parse is as if not sent. */
function unmodifiedSince(header: string): Date | undefined {
  if (!header) return undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : new Date(at);
}

async function deleteGroup({ params: p, actor, ctx, deps }: Call<typeof deleteGroupParams>) {
  await deps.groupLifecycle.deleteGroup({
    actor,
    group: groupRef(p.id),
    unmodifiedSince: unmodifiedSince(ctx.get("If-Unmodified-Since")),
    permanentlyRemove: Boolean(p.permanently_remove),
    fullPath: p.full_path,
  });
  sendJson(ctx, 202, { message: "202 Accepted" });
}

const restoreGroupParams = { id: param.idOrPath() };

async function restoreGroup({ params: p, actor, ctx, deps }: Call<typeof restoreGroupParams>) {
  const detail = await deps.groupLifecycle.restoreGroup({ actor, group: groupRef(p.id) });
  // The projects service may not have seen the restore yet: its projects count as unmarked already.
  sendJson(ctx, 201, await groupDetailWithProjects(deps, actor, detail, { restored: true }));
}

const transferGroupParams = { id: param.idOrPath(), group_id: param.integer().optional() };

async function transferGroup({ params: p, actor, ctx, deps }: Call<typeof transferGroupParams>) {
  // GitLab looks any given group_id up (`present?`), 0 included: a group that cannot exist, 404.
  if (p.group_id !== undefined && p.group_id <= 0) throw notFoundError("Group");
  const detail = await deps.groupLifecycle.transferGroup({
    actor,
    group: groupRef(p.id),
    newParentId: p.group_id ?? 0,
  });
  sendJson(ctx, 201, await groupDetailWithProjects(deps, actor, detail));
}

export const groupLifecycleEndpoints = [
  endpoint({
    method: "DELETE",
    path: "/groups/:id",
    access: "user",
    params: deleteGroupParams,
    handler: deleteGroup,
    responses: { 202: Accepted },
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/restore",
    access: "user",
    params: restoreGroupParams,
    handler: restoreGroup,
    responses: { 201: GroupDetail },
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/transfer",
    access: "user",
    params: transferGroupParams,
    handler: transferGroup,
    responses: { 201: GroupDetail },
  }),
];
