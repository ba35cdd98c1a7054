import { projectActivity, type common } from "@canopy/protos";
import type { z } from "zod";
import { memberUserBasic } from "../entities/member";
import { Event, listOf } from "../entities/schemas";
import { iso } from "../entities/time";
import { endpoint, type Call } from "../http/endpoint";
import { notFoundError } from "../http/errors";
import { sendJson } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { param } from "../http/params";
import { READ_USER } from "../http/scopes";
import type { RouteDeps } from "./context";
import { projectRef } from "./projects";

/**
 * GitLab's events API (lib/api/events.rb, project_events.rb) over what Canopy records: projects
 * created and members joining, leaving or expiring. The projects service keeps them and shows a
 * caller only the events of projects they may see.
 */

/** Event.actions and Event::TARGET_TYPES: other values are refused as Grape's `values:` does. */
const ACTIONS = [
  "created",
  "updated",
  "closed",
  "reopened",
  "pushed",
  "commented",
  "merged",
  "joined",
  "left",
  "destroyed",
  "expired",
  "approved",
] as const;
const TARGET_TYPES = [
  "issue",
  "milestone",
  "merge_request",
  "note",
  "project",
  "snippet",
  "user",
  "wiki",
  "design",
] as const;

const filterParams = {
  action: param.oneOf(ACTIONS).optional(),
  target_type: param.oneOf(TARGET_TYPES).optional(),
  before: param.date().optional(),
  after: param.date().optional(),
  sort: param.oneOf(["asc", "desc"]).optional(),
  ...paginationParams,
};

type EventQuery = Pick<projectActivity.ListEventsRequest, "authorId" | "project" | "memberProjects">;

async function answerEvents(
  { params: p, actor, ctx, deps }: Call<typeof filterParams>,
  query: EventQuery,
): Promise<void> {
  const res = await deps.projectEvents.listEvents({
    actor,
    authorId: query.authorId,
    project: query.project,
    memberProjects: query.memberProjects,
    action: p.action ?? "",
    targetType: p.target_type ?? "",
    before: p.before ?? "",
    after: p.after ?? "",
    sort:
      p.sort === "asc" ? projectActivity.EventSort.EVENT_SORT_ASC : projectActivity.EventSort.EVENT_SORT_DESC,
    page: pageRequest(p),
  });
  paginate(ctx, deps.config.CANOPY_EXTERNAL_URL, { offset: res.page!, itemsOnPage: res.events.length });
  sendJson(
    ctx,
    200,
    res.events.map((e) => eventEntity(e, deps.config.CANOPY_EXTERNAL_URL)),
  );
}

/** An empty list, as EventsFinder answers Event.none (a private profile). */
function answerNone(call: Call<typeof filterParams>): void {
  const { page = 1, per_page: perPage = 20 } = call.params;
  const info = { page: Math.max(1, page), perPage, total: 0, totalCapped: false, nextCursor: "" };
  paginate(call.ctx, call.deps.config.CANOPY_EXTERNAL_URL, { offset: info, itemsOnPage: 0 });
  sendJson(call.ctx, 200, []);
}

export function eventEntity(e: projectActivity.ActivityEvent, externalUrl: string): z.infer<typeof Event> {
  return {
    id: e.id,
    project_id: e.projectId,
    action_name: e.actionName,
    target_id: e.targetId || null,
    target_iid: null,
    target_type: e.targetType || null,
    author_id: e.authorId,
    target_title: null,
    created_at: iso(e.createdAt)!,
    ...(e.author ? { author: memberUserBasic(e.author, externalUrl) } : {}),
    imported: false,
    imported_from: "none",
    author_username: e.author?.username ?? null,
  };
}

/** GET /events: the caller's own events, or with scope=all those of every project they are in. */
const ownParams = { scope: param.string(255).optional(), ...filterParams };
async function listOwnEvents(call: Call<typeof ownParams>): Promise<void> {
  const all = call.params.scope === "all";
  await answerEvents(call, { authorId: all ? 0 : call.actor.userId, memberProjects: all });
}

/** GET /users/:id/events: `id` is an id or a username (find_user); a private profile shows nothing. */
const userParams = { id: param.string(255), ...filterParams };
async function listUserEvents(call: Call<typeof userParams>): Promise<void> {
  const user = await findUser(call.deps, call.actor, call.params.id);
  const self = call.actor.userId === user.id;
  if (user.privateProfile && !self && !call.actor.admin) return answerNone(call);
  await answerEvents(call, { authorId: user.id, memberProjects: false });
}

async function findUser(deps: RouteDeps, actor: common.Actor, idOrUsername: string) {
  const numeric = /^\d+$/.test(idOrUsername);
  // An id no user can have (beyond bigint) is a user that does not exist.
  if (numeric && !Number.isSafeInteger(Number(idOrUsername))) throw notFoundError("User");
  return deps.auth.getUser({
    actor,
    id: numeric ? Number(idOrUsername) : 0,
    username: numeric ? "" : idOrUsername,
    withCustomAttributes: false,
  });
}

/** GET /projects/:id/events: 404 "Project Not Found" unless the caller may see the project. */
const projectParams = { id: param.idOrPath(), ...filterParams };
const listProjectEvents = (call: Call<typeof projectParams>) =>
  answerEvents(call, { authorId: 0, project: projectRef(call.params.id), memberProjects: false });

export const eventEndpoints = [
  endpoint({
    method: "GET",
    path: "/events",
    access: "user",
    scopes: READ_USER,
    params: ownParams,
    handler: listOwnEvents,
    responses: { 200: listOf(Event) },
  }),
  endpoint({
    method: "GET",
    path: "/users/:id/events",
    access: "anonymous",
    scopes: READ_USER,
    params: userParams,
    handler: listUserEvents,
    responses: { 200: listOf(Event) },
  }),
  endpoint({
    method: "GET",
    path: "/projects/:id/events",
    access: "anonymous",
    params: projectParams,
    handler: listProjectEvents,
    responses: { 200: listOf(Event) },
  }),
];
