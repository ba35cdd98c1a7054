import { z } from "zod";
import { userActivityEntity } from "../entities/user-status";
import { listOf, UserActivity } from "../entities/schemas";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { READ_USER } from "../http/scopes";

/**
 * GET /user/activities (GitLab lib/api/users.rb): administrators see who was active since `from`,
 * least recently active first. The days are recorded by http/user-activity.ts, once a day per user.
 */

/** Grape's DateTime: a date, or a date and time (with an offset or Z). */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const dateTime = z
  .string()
  .regex(DATE_TIME)
  .refine((s) => !Number.isNaN(Date.parse(s.replace(" ", "T"))));

const activityParams = { from: dateTime.optional(), ...paginationParams };

async function listUserActivities({ params: p, actor, ctx, deps }: Call<typeof activityParams>) {
  const from = p.from ? new Date(Date.parse(p.from.replace(" ", "T"))).toISOString() : "";
  const res = await deps.userActivity.listUserActivities({ actor, from, page: pageRequest(p) });
  paginate(ctx, deps.config.CANOPY_EXTERNAL_URL, { offset: res.page!, itemsOnPage: res.activities.length });
  sendJson(ctx, 200, res.activities.map(userActivityEntity));
}

export const userActivityEndpoints = [
  endpoint({
    method: "GET",
    path: "/user/activities",
    access: "admin",
    scopes: READ_USER,
    params: activityParams,
    handler: listUserActivities,
    responses: { 200: listOf(UserActivity) },
  }),
];
