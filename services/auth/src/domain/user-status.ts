import { isEmojiName } from "@canopy/kit/gitlab/emoji";

/**
 * A user's status, as GitLab's UserStatus model and Users::SetStatusService rule it. Pure rules: the
 * command reads and writes, these decide.
 */

export const DEFAULT_EMOJI = "speech_balloon";
export const AVAILABILITIES = ["not_set", "busy"] as const;
export const MAX_MESSAGE_LENGTH = 100;

const MINUTE = 60_000;
/** GitLab's CLEAR_STATUS_QUICK_OPTIONS: how long after being set a status clears itself. */
export const CLEAR_STATUS_AFTER: Readonly<Record<string, number>> = {
  "30_minutes": 30 * MINUTE,
  "3_hours": 3 * 60 * MINUTE,
  "8_hours": 8 * 60 * MINUTE,
  "1_day": 24 * 60 * MINUTE,
  "3_days": 3 * 24 * 60 * MINUTE,
  "7_days": 7 * 24 * 60 * MINUTE,
  "30_days": 30 * 24 * 60 * MINUTE,
};

export interface StatusFields {
  emoji: string;
  message: string | null;
  availability: string;
  clearStatusAt: Date | null;
}

/** A status whose clear time has come is gone: decided when read, so no timer has to clear it. */
export const isLive = (s: { clearStatusAt: Date | null }, now = new Date()) =>
  !s.clearStatusAt || s.clearStatusAt.getTime() > now.getTime();

/** What a PUT (replace) or PATCH (only what is given) asks for; absent means not given. */
export interface StatusChange {
  replace: boolean;
  emoji?: string;
  message?: string;
  availability?: string;
  clearStatusAfter?: string;
}

const blank = (s: string | undefined) => !s || !s.trim();

/**
 * GitLab sets a status when an emoji, a message or an availability is given, and removes it
 * otherwise (a PATCH with only clear_status_after too). Returns null for a removal.
 */
export function nextStatus(
  current: StatusFields | null,
  change: StatusChange,
  now = new Date(),
): StatusFields | null {
  if (blank(change.emoji) && blank(change.message) && blank(change.availability)) return null;
  const keepsMessage = !change.replace && change.message === undefined;
  const keepsClearTime = !change.replace && change.clearStatusAfter === undefined;
  const after = change.clearStatusAfter ? CLEAR_STATUS_AFTER[change.clearStatusAfter] : undefined;
  return {
    emoji: blank(change.emoji) ? DEFAULT_EMOJI : change.emoji!,
    message: keepsMessage ? (current?.message ?? null) : (change.message ?? null),
    // A blank availability leaves the one the user had (GitLab deletes the blank parameter).
    availability: blank(change.availability) ? (current?.availability ?? "not_set") : change.availability!,
    clearStatusAt: keepsClearTime
      ? (current?.clearStatusAt ?? null)
      : after === undefined
        ? null
        : new Date(now.getTime() + after),
  };
}

/** The model's validation messages by attribute (app/models/user_status.rb), empty when valid. */
export function statusErrors(s: StatusFields): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!isEmojiName(s.emoji)) errors.emoji = ["is not a valid emoji name"];
  if (s.message && [...s.message].length > MAX_MESSAGE_LENGTH)
    errors.message = [`is too long (maximum is ${MAX_MESSAGE_LENGTH} characters)`];
  return errors;
}

export const isAvailability = (s: string) => (AVAILABILITIES as readonly string[]).includes(s);
