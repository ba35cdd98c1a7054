import { lowestVisibleLevel, pageInfo, pageWindow } from "@canopy/kit";
import { projectActivity } from "@canopy/protos";
import type { Deps } from "../deps";
import { countEvents, listEvents, type EventQuery, type EventRow } from "../store/events";
import { resolveProject, viewerOf } from "./projects";

/** GitLab's Event::TARGET_TYPES: the API's names and the class names events store. */
const TARGET_CLASSES: Record<string, string> = {
  issue: "Issue",
  milestone: "Milestone",
  merge_request: "MergeRequest",
  note: "Note",
  project: "Project",
  snippet: "Snippet",
  user: "User",
  wiki: "WikiPage::Meta",
  design: "DesignManagement::Design",
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * GitLab's EventsFinder: the events of an author, of a project (404 "Project" when the caller may
 * not see it) or of the caller's projects, only in projects the caller may see, filtered, by id.
 * Whether the author's profile may be read is the gateway's question (it knows users).
 */
export async function listActivity(
  deps: Deps,
  req: projectActivity.ListEventsRequest,
): Promise<projectActivity.ListEventsResponse> {
  const viewer = viewerOf(req.actor);
  const project = req.project ? await resolveProject(deps, req.actor, req.project) : undefined;
  const q: EventQuery = {
    viewer: { userId: viewer.userId, admin: viewer.admin, lowest: lowestVisibleLevel(viewer) },
    membership: req.memberProjects && viewer.userId > 0,
    authorId: req.authorId || undefined,
    projectId: project?.row.id,
    action: req.action || undefined,
    // An unknown name matches nothing rather than everything.
    targetType: req.targetType ? (TARGET_CLASSES[req.targetType] ?? "-") : undefined,
    before: DATE.test(req.before) ? req.before : undefined,
    after: DATE.test(req.after) ? req.after : undefined,
    asc: req.sort === projectActivity.EventSort.EVENT_SORT_ASC,
  };
  const window = pageWindow(req.page);
  const [rows, counted] = await Promise.all([listEvents(deps.pool, q, window), countEvents(deps.pool, q)]);
  return { events: rows.map(toEvent), page: pageInfo(window, counted) };
}

const toEvent = (r: EventRow): projectActivity.ActivityEvent => ({
  id: r.id,
  projectId: r.project_id,
  actionName: r.action,
  authorId: r.author_id,
  createdAt: r.created_at,
  author:
    r.username === null
      ? undefined
      : {
          id: r.author_id,
          username: r.username,
          name: r.name ?? "",
          state: r.state ?? "active",
          avatarUrl: r.avatar_url ?? "",
        },
  targetId: r.target_id ?? 0,
  targetType: r.target_type ?? "",
});
