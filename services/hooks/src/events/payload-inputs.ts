import type { HookGroup, HookMembership, HookProject, HookUser, ProjectVisibility } from "../payloads";
import type { MemberRow, NamespaceRow, ProjectRow, UserRow } from "../store/copies";

/**
 * The copies (rows, as the events filled them) as the payload builders take them (payloads/types.ts).
 * Two things GitLab's payloads read are not held by Canopy, and each maps to what GitLab itself
 * sends when it lacks them:
 * - a project's own namespace (Canopy has no ProjectNamespace rows): `project_namespace_id` is null;
 * - a subscription plan (`group_plan`): null, as on a self-managed GitLab (no gitlab_subscription).
 */

export const hookGroupOf = (g: NamespaceRow): HookGroup => ({
  id: g.id,
  name: g.name,
  path: g.path,
  fullPath: g.full_path,
  parentId: g.parent_id,
  createdAt: g.created_at,
  updatedAt: g.updated_at,
  planName: null,
});

export const hookUserOf = (u: UserRow): HookUser => ({
  id: u.id,
  username: u.username,
  name: u.name,
  email: u.email,
  publicEmail: u.public_email || null,
});

/** A user the copies do not know (yet): named by id only. */
export const unknownUser = (id: number): HookUser => ({ id, username: "", name: "", email: "" });

const VISIBILITY: Record<number, ProjectVisibility> = { 0: "private", 10: "internal", 20: "public" };

export const hookProjectOf = (p: ProjectRow): HookProject => ({
  id: p.id,
  name: p.name,
  path: p.path,
  pathWithNamespace: p.path_with_namespace,
  projectNamespaceId: null,
  visibility: VISIBILITY[p.visibility_level] ?? "private",
  createdAt: p.created_at,
  updatedAt: p.updated_at,
});

export const hookMembershipOf = (m: MemberRow): HookMembership => ({
  accessLevel: m.access_level,
  expiresAt: m.expires_at,
  createdAt: m.created_at,
  updatedAt: m.updated_at,
});
