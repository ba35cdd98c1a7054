import type { userActivity, userStatus } from "@canopy/protos";
import escapeHtml from "escape-html";
import type { z } from "zod";
import type * as schemas from "./schemas";
import { iso } from "./time";

/**
 * GitLab's UserStatus entity. `message_html` is the message made safe for HTML: escaped. GitLab
 * also turns `:name:` codes in it into <gl-emoji> elements (its emoji pipeline); Canopy leaves them
 * as text.
 */
export function userStatusEntity(s: userStatus.UserStatus): z.infer<typeof schemas.UserStatus> {
  if (!s.set)
    return { emoji: null, message: null, availability: null, message_html: "", clear_status_at: null };
  return {
    emoji: s.emoji,
    message: s.message ?? null,
    availability: s.availability as "not_set" | "busy",
    message_html: escapeHtml(s.message ?? ""),
    clear_status_at: iso(s.clearStatusAt),
  };
}

/** GitLab's UserActivity entity. */
export const userActivityEntity = (a: userActivity.UserActivity): z.infer<typeof schemas.UserActivity> => ({
  username: a.username,
  last_activity_on: a.lastActivityOn,
  last_activity_at: a.lastActivityOn,
});
