import type { Call } from "../http/endpoint";
import { HttpError, notFoundError } from "../http/errors";
import { keysetPaginationParams, keysetPageRequest, paginateAnswer } from "../http/pagination";
import { param } from "../http/params";
import { rawParams } from "./context";
import { customAttributesOf } from "./group-lists";
import { sendProjectList } from "./project-shaping";

/**
 * The project lists (GitLab lib/api/projects.rb): GET /projects, /users/:user_id/projects and the
 * projects scope of GET /search. Their endpoints are in projects.ts, in the API's order.
 */

export const listParams = {
  ...keysetPaginationParams,
  search: param.string(1_000).optional(),
  owned: param.boolean().optional(),
  membership: param.boolean().optional(),
  starred: param.boolean().optional(),
  visibility: param.oneOf(["private", "internal", "public"]).optional(),
  archived: param.boolean().optional(),
  order_by: param
    .oneOf(["id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity", "star_count"])
    .optional(),
  sort: param.oneOf(["asc", "desc"]).optional(),
  simple: param.boolean().optional(),
  min_access_level: param.integer().optional(),
  topic: param.string(1_000).optional(),
  statistics: param.boolean().optional(),
  with_custom_attributes: param.boolean().optional(),
};
export const userListParams = { user_id: param.string(255), ...listParams };

async function answerList(
  { params: p, actor, ctx, deps }: Call<typeof listParams>,
  owner: { userId?: number; username?: string } = {},
) {
  const keyset = p.pagination === "keyset";
  // A score has no keyset position (GitLab offers keyset pages for plain column orders only).
  if (keyset && p.order_by === "similarity")
    throw new HttpError(405, { error: "Keyset pagination is not yet available for this type of request" });
  const res = await deps.projects.listProjects({
    actor,
    userId: owner.userId ?? 0,
    username: owner.username ?? "",
    search: p.search ?? "",
    owned: Boolean(p.owned),
    membership: Boolean(p.membership),
    starred: Boolean(p.starred),
    visibility: p.visibility ?? "",
    archived: p.archived,
    orderBy: p.order_by ?? "",
    sort: p.sort ?? "",
    minAccessLevel: p.min_access_level ?? 0,
    topics: (p.topic ?? "").split(","),
    withCustomAttributes: Boolean(p.with_custom_attributes),
    customAttributes: Object.fromEntries(customAttributesOf(rawParams(ctx)).map((a) => [a.key, a.value])),
    page: keysetPageRequest(p, keyset),
  });
  paginateAnswer(ctx, deps.config.CANOPY_EXTERNAL_URL, res.page!, res.projects.length, keyset);
  sendProjectList(ctx, deps, res.projects, p.simple);
}

export const listProjects = (call: Call<typeof listParams>) => answerList(call);

/** GET /search?scope=projects: the projects the caller may see matching `search`, as BasicProjectDetails. */
export const searchProjects = (call: Call<typeof listParams>) =>
  answerList({ ...call, params: { ...call.params, simple: true } });

/** GET /users/:user_id/projects: `user_id` is an id or a username (GitLab's find_user). */
export async function listUserProjects(call: Call<typeof userListParams>) {
  const u = call.params.user_id;
  if (!/^\d+$/.test(u)) return answerList(call, { username: u });
  // An id no user can have (beyond bigint) is a user that does not exist.
  if (!Number.isSafeInteger(Number(u))) throw notFoundError("User");
  await answerList(call, { userId: Number(u) });
}
