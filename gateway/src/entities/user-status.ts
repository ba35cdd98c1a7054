import type { userActivity, userStatus } from "@canopy/protos";
import type { z } from "zod";
import { emojiPipelineHtml } from "./emoji-pipeline";
import type * as schemas from "./schemas";
import { iso } from "./time";

/**
 * GitLab's UserStatus entity. `message_html` is the message through GitLab's emoji pipeline: escaped,
 * with its `:name:` codes and unicode emoji as <gl-emoji> elements.
 */
export function userStatusEntity(s: userStatus.UserStatus): z.infer<typeof schemas.UserStatus> {
  if (!s.set)
    return { emoji: null, message: null, availability: null, message_html: "", clear_status_at: null };
  return {
    emoji: s.emoji,
    message: s.message ?? null,
    availability: s.availability as "not_set" | "busy",
    message_html: emojiPipelineHtml(s.message ?? ""),
    clear_status_at: iso(s.clearStatusAt),
  };
}

/** GitLab's UserActivity entity. */
export const userActivityEntity = (a: userActivity.UserActivity): z.infer<typeof schemas.UserActivity> => ({
  username: a.username,
  last_activity_on: a.lastActivityOn,
  last_activity_at: a.lastActivityOn,
});
