/**
 * Today in UTC, as SQL: a membership or link expires at the start of its expires_at date, and a kept
 * list count is valid only on the UTC day it was counted (sql/list-counts.ts).
 */
export const UTC_TODAY = "(now() AT TIME ZONE 'utc')::date";
