import type { Context } from "koa";
import { z } from "zod";
import { BasicProject, UserBasic, listOf } from "../entities/schemas";
import { userBasic } from "../entities/user";
import { endpoint, type Call } from "../http/endpoint";
import { HttpError } from "../http/errors";
import { sendJson } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { param } from "../http/params";
import { searchProjects } from "./project-lists";

/**
 * GET /search, GitLab's global search (lib/api/search.rb) over what Canopy hosts: users (as GET
 * /users?search= finds them, in User.search's order) and projects. Issues, merge requests,
 * milestones and snippets do not exist here: an empty list, as GitLab answers on an instance without
 * any. Code, commits, wiki and notes need GitLab's advanced search, which Canopy has not: GitLab's
 * refusal for an instance without it.
 */

/** CE's global scopes with EE's (ee/lib/ee/api/helpers/search_helpers.rb) before them. */
const SCOPES = [
  "wiki_blobs",
  "blobs",
  "commits",
  "notes",
  "projects",
  "issues",
  "merge_requests",
  "milestones",
  "snippet_titles",
  "users",
] as const;
type Scope = (typeof SCOPES)[number];

const EMPTY: ReadonlySet<Scope> = new Set(["issues", "merge_requests", "milestones", "snippet_titles"]);
const ADVANCED_ONLY: ReadonlySet<Scope> = new Set(["wiki_blobs", "blobs", "commits", "notes"]);

const searchParams = {
  ...paginationParams,
  search: param.string(1_000),
  scope: param.oneOf(SCOPES),
};

/** EE's `verify_search_scope!` without advanced search: render_api_error!({ error: ... }, 400). */
function refuseAdvancedScope(scope: Scope): never {
  const error =
    scope === "blobs"
      ? "Scope supported only with advanced search or exact code search"
      : "Scope supported only with advanced search";
  throw new HttpError(400, { message: { error } });
}

function sendEmpty(ctx: Context, externalUrl: string, p: { page?: number; per_page?: number }) {
  const { page, perPage } = pageRequest(p);
  paginate(ctx, externalUrl, {
    offset: {
      page: Math.max(1, page),
      perPage: Math.min(100, Math.max(1, perPage)),
      total: 0,
      totalCapped: false,
      nextCursor: "",
    },
    itemsOnPage: 0,
  });
  sendJson(ctx, 200, []);
}

async function search(call: Call<typeof searchParams>) {
  const { params: p, actor, ctx, deps } = call;
  const url = deps.config.CANOPY_EXTERNAL_URL;
  if (ADVANCED_ONLY.has(p.scope)) refuseAdvancedScope(p.scope);
  if (EMPTY.has(p.scope)) return sendEmpty(ctx, url, p);
  if (p.scope === "projects") return searchProjects({ ...call, params: { ...p } });
  const res = await deps.auth.listUsers({
    actor,
    search: p.search,
    username: "",
    state: "",
    page: pageRequest(p),
    externUid: "",
    provider: "",
    customAttributes: [],
    withCustomAttributes: false,
    searchOrder: true,
  });
  paginate(ctx, url, { offset: res.page!, itemsOnPage: res.users.length });
  sendJson(
    ctx,
    200,
    res.users.map((u) => userBasic(u, url)),
  );
}

export const searchEndpoints = [
  endpoint({
    method: "GET",
    path: "/search",
    access: "user",
    params: searchParams,
    handler: search,
    responses: { 200: z.union([listOf(UserBasic), listOf(BasicProject)]) },
  }),
];
