/**
 * What the payload builders are built from: plain values the hooks service already holds (its
 * copies of groups, users, projects and memberships from their events). Dates are `Date`s; a
 * membership's `expiresAt` is a calendar day.
 */

export interface HookGroup {
  id: number;
  name: string;
  path: string;
  fullPath: string;
  fullName?: string;
  parentId?: number | null;
  createdAt: Date;
  updatedAt: Date;
  /** The EE plan name (`group_plan` of member events); null on instances without plans. */
  planName?: string | null;
}

export interface HookUser {
  id: number;
  username: string;
  name: string;
  /** The primary email: member events carry it as `user_email`. */
  email: string;
  /** The public email; payloads that show a user's `email` print `[REDACTED]` without one. */
  publicEmail?: string | null;
  avatarUrl?: string | null;
}

export type ProjectVisibility = "private" | "internal" | "public";

export interface HookProject {
  id: number;
  name: string;
  path: string;
  pathWithNamespace: string;
  /** The id of the project's own namespace (GitLab's ProjectNamespace), when known. */
  projectNamespaceId?: number | null;
  description?: string | null;
  visibility: ProjectVisibility;
  defaultBranch?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface HookMembership {
  accessLevel: number;
  /** YYYY-MM-DD, or null. */
  expiresAt: string | null;
  createdAt: Date;
  updatedAt: Date;
  /** A custom role's name replaces the access level's name in `group_access`. */
  memberRoleName?: string | null;
}

/** A payload ready to deliver: which hooks receive it (`trigger`) and its `X-Gitlab-Event`. */
export interface BuiltHookPayload<P = Record<string, unknown>> {
  trigger: string;
  eventHeader: string;
  payload: P;
}
