import { ACCESS_LEVEL_NAMES } from "./access-levels";

/*
 * Validations of GitLab's Member model that hold for every source (a group's or a project's
 * membership), without I/O. Which levels a source takes, and how the errors combine, are each
 * service's own (domain/members.ts): groups know minimal access, projects do not.
 */

/**
 * Member#higher_access_level_than_group: a direct membership may not be lower than the highest one
 * the user holds in an ancestor group (named by its role and that group's name).
 */
export function inheritedLevelErrors(
  level: number,
  inherited: { accessLevel: number; groupName: string } | undefined,
): string[] {
  if (!inherited || inherited.accessLevel <= level) return [];
  const role = ACCESS_LEVEL_NAMES[inherited.accessLevel] ?? String(inherited.accessLevel);
  return [
    `should be greater than or equal to ${role} inherited membership from group ${inherited.groupName}`,
  ];
}

/** The future_date validator: a date before today (UTC, GitLab's default zone) is refused. */
export function expiresAtErrors(expiresAt: string | undefined, today: string): string[] {
  return expiresAt && expiresAt < today ? ["cannot be a date in the past"] : [];
}

/** Today as "YYYY-MM-DD" in UTC. */
export const utcToday = (now = new Date()) => now.toISOString().slice(0, 10);
