import { badParameter, pageInfo, pageWindow, requireAdmin, requireSignedIn } from "@canopy/kit";
import type { userActivity } from "@canopy/protos";
import type { Deps } from "../deps";
import * as activity from "../store/user-activity";

/**
 * The day each user was last active (GitLab's Users::ActivityService and GET /user/activities).
 * The gateway asks at most once a day per user; the row is written only when the day changed.
 */
export async function recordUserActivity(deps: Deps, request: userActivity.RecordUserActivityRequest) {
  const actor = requireSignedIn(request.actor);
  return { written: await activity.touchLastActivity(deps.pool, actor.userId) };
}

const SIX_MONTHS_MS = 182 * 86_400_000;

export async function listUserActivities(deps: Deps, request: userActivity.ListUserActivitiesRequest) {
  requireAdmin(request.actor);
  // GitLab's default: six months ago.
  const from = request.from || new Date(Date.now() - SIX_MONTHS_MS).toISOString();
  if (Number.isNaN(Date.parse(from))) throw badParameter("from is invalid");
  const window = pageWindow(request.page);
  const [list, counted] = await Promise.all([
    activity.listActivities(deps.pool, from, window.limit, window.offset),
    activity.countActivities(deps.pool, from),
  ]);
  return { activities: list, page: pageInfo(window, counted) };
}
