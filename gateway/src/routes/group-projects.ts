import type { common, groups } from "@canopy/protos";
import { groupDetailEntity } from "../entities/group";
import { projectEntity } from "../entities/project";
import { endpoint, type Call } from "../http/endpoint";
import { HttpError } from "../http/errors";
import { sendJson } from "../http/json";
import { keysetPaginationParams, keysetPageRequest, paginateAnswer } from "../http/pagination";
import { param } from "../http/params";
import { rawParams, type RouteDeps } from "./context";
import { detailLdapLinks } from "./group-ldap";
import { customAttributesOf } from "./group-lists";
import { groupRef, shapingOf } from "./groups";
import { projectRef } from "./projects";
import { projectShaping, sendProjectList } from "./project-shaping";
import { z } from "zod";
import { BasicProject, GroupDetail, Project, listOf } from "../entities/schemas";

/**
 * The projects of a group as the Groups API shows them (GitLab lib/api/groups.rb): the group's project
 * list, the projects shared to it, the transfer of a project into it, and the group detail's
 * `projects` / `shared_projects`. The group is resolved by the groups service first (404 "Group Not
 * Found" when the caller cannot see it), then the projects service answers for that group id.
 */

const ORDERS = ["id", "name", "path", "created_at", "updated_at", "last_activity_at", "star_count"] as const;

const sharedListParams = {
  id: param.idOrPath(),
  ...keysetPaginationParams,
  archived: param.boolean().optional(),
  visibility: param.oneOf(["private", "internal", "public"]).optional(),
  search: param.string(1_000).optional(),
  order_by: param.oneOf(ORDERS).optional(),
  sort: param.oneOf(["asc", "desc"]).optional(),
  simple: param.boolean().optional(),
  starred: param.boolean().optional(),
  with_issues_enabled: param.boolean().optional(),
  with_merge_requests_enabled: param.boolean().optional(),
  min_access_level: param.integer().optional(),
  with_custom_attributes: param.boolean().optional(),
  topic: param.string(1_000).optional(),
};

const listParams = {
  ...sharedListParams,
  order_by: param.oneOf([...ORDERS, "similarity"]).optional(),
  owned: param.boolean().optional(),
  with_shared: param.boolean().optional(),
  include_subgroups: param.boolean().optional(),
  with_security_reports: param.boolean().optional(),
};
type ListParams = Call<typeof sharedListParams>["params"] & Partial<Call<typeof listParams>["params"]>;

/** The group at `:id` as the caller may see it (404 "Group Not Found" otherwise). */
async function visibleGroup(deps: RouteDeps, actor: common.Actor, id: ListParams["id"]) {
  const detail = await deps.groups.getGroup({
    actor,
    group: groupRef(id),
    withCustomAttributes: false,
    withRunnersToken: false,
  });
  return detail.group!;
}

async function answerList(call: Call<typeof sharedListParams>, sharedOnly: boolean) {
  const { actor, ctx, deps } = call;
  const p = call.params as ListParams;
  const keyset = p.pagination === "keyset";
  // A score has no keyset position (GitLab offers keyset pages for plain column orders only).
  if (keyset && (p.order_by as string | undefined) === "similarity")
    throw new HttpError(405, { error: "Keyset pagination is not yet available for this type of request" });
  const group = await visibleGroup(deps, actor, p.id);
  const res = await deps.groupProjects.listGroupProjects({
    actor,
    groupId: group.id,
    sharedOnly,
    withShared: p.with_shared ?? true,
    includeSubgroups: Boolean(p.include_subgroups),
    search: p.search ?? "",
    owned: Boolean(p.owned),
    starred: Boolean(p.starred),
    visibility: p.visibility ?? "",
    archived: p.archived,
    orderBy: p.order_by ?? "",
    sort: p.sort ?? "",
    minAccessLevel: p.min_access_level ?? 0,
    withIssuesEnabled: Boolean(p.with_issues_enabled),
    withMergeRequestsEnabled: Boolean(p.with_merge_requests_enabled),
    topics: (p.topic ?? "").split(","),
    // An ultimate parameter: other plans do not declare it, so it filters nothing there.
    withSecurityReports: deps.config.CANOPY_PLAN === "ultimate" && Boolean(p.with_security_reports),
    withCustomAttributes: Boolean(p.with_custom_attributes),
    customAttributes: Object.fromEntries(customAttributesOf(rawParams(ctx)).map((a) => [a.key, a.value])),
    page: keysetPageRequest(p, keyset),
  });
  paginateAnswer(ctx, deps.config.CANOPY_EXTERNAL_URL, res.page!, res.projects.length, keyset);
  sendProjectList(ctx, deps, res.projects, p.simple);
}

/** The group detail's projects and shared projects (full entities, at most 100 each). */
export async function detailProjects(
  deps: RouteDeps,
  actor: common.Actor,
  groupId: number,
  options: { restored?: boolean } = {},
) {
  const res = await deps.groupProjects.groupDetailProjects({
    actor,
    groupId,
    restored: Boolean(options.restored),
  });
  const shaping = projectShaping(deps);
  return {
    projects: res.projects.map((x) => projectEntity(x, shaping)),
    shared_projects: res.sharedProjects.map((x) => projectEntity(x, shaping)),
  };
}

/** GroupDetail with its real projects (13.x renders them on every detail answer). */
export async function groupDetailWithProjects(
  deps: RouteDeps,
  actor: common.Actor,
  detail: groups.GroupDetail,
  options: { restored?: boolean } = {},
) {
  const [projects, ldapGroupLinks] = await Promise.all([
    detailProjects(deps, actor, detail.group!.id, options),
    detailLdapLinks(deps, actor, detail.group!.id),
  ]);
  return groupDetailEntity(detail, shapingOf(deps), { projects, ldapGroupLinks });
}

const transferParams = { id: param.idOrPath(), project_id: param.idOrPath() };

/** Administrators only (403 for anyone else, before any lookup); 201 with the *group*. */
async function transferProject({ params: p, actor, ctx, deps }: Call<typeof transferParams>) {
  const group = await visibleGroup(deps, actor, p.id);
  await deps.groupProjects.transferProject({
    actor,
    project: projectRef(p.project_id),
    namespaceId: group.id,
  });
  const detail = await deps.groups.getGroup({
    actor,
    group: { id: group.id, fullPath: "" },
    withCustomAttributes: false,
    withRunnersToken: false,
  });
  sendJson(ctx, 201, await groupDetailWithProjects(deps, actor, detail));
}

export const groupProjectEndpoints = [
  endpoint({
    method: "GET",
    path: "/groups/:id/projects",
    access: "anonymous",
    params: listParams,
    handler: (call: Call<typeof listParams>) =>
      answerList(call as unknown as Call<typeof sharedListParams>, false),
    cacheAnswers: true,
    responses: { 200: z.union([listOf(Project), listOf(BasicProject)]) },
  }),
  endpoint({
    method: "GET",
    path: "/groups/:id/projects/shared",
    access: "anonymous",
    params: sharedListParams,
    handler: (call: Call<typeof sharedListParams>) => answerList(call, true),
    cacheAnswers: true,
    responses: { 200: z.union([listOf(Project), listOf(BasicProject)]) },
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/projects/:project_id",
    access: "admin",
    params: transferParams,
    handler: transferProject,
    responses: { 201: GroupDetail },
  }),
];
