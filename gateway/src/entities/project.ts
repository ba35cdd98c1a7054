import { PROJECT_FEATURE_SWITCHES, planFeatures, type Plan } from "@canopy/kit";
import type { projects } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";
import { iso } from "./time";

/** What shaping a project needs besides the project: where links point and which tier is on. */
export interface ProjectShaping {
  externalUrl: string;
  plan: Plan;
}

const base = (url: string) => url.replace(/\/+$/, "");

/** GitLab's BasicProjectDetails (`simple=true`, and the first half of every Project). */
export function basicProjectEntity(
  p: projects.Project,
  s: ProjectShaping,
): z.infer<typeof schemas.BasicProject> {
  const url = base(s.externalUrl);
  const ns = p.namespace!;
  const fullPath = `${ns.fullPath}/${p.path}`;
  return {
    id: p.id,
    description: p.description ?? null,
    name: p.name,
    name_with_namespace: `${ns.fullName} / ${p.name}`,
    path: p.path,
    path_with_namespace: fullPath,
    created_at: iso(p.createdAt),
    default_branch: p.defaultBranch ?? null,
    tag_list: p.topics,
    topics: p.topics,
    ssh_url_to_repo: `git@${new URL(url).hostname}:${fullPath}.git`,
    http_url_to_repo: `${url}/${fullPath}.git`,
    web_url: `${url}/${fullPath}`,
    readme_url: null,
    avatar_url: null,
    forks_count: 0,
    star_count: p.starCount,
    last_activity_at: iso(p.lastActivityAt),
    namespace: {
      id: ns.id,
      name: ns.name,
      path: ns.path,
      kind: ns.kind as "user" | "group",
      full_path: ns.fullPath,
      parent_id: ns.parentId || null,
      avatar_url: ns.kind === "user" ? ns.ownerAvatarUrl || null : null,
      web_url: ns.kind === "user" ? `${url}/${ns.fullPath}` : `${url}/groups/${ns.fullPath}`,
    },
  };
}

const FEATURE_SWITCH_ENTRIES = Object.entries(PROJECT_FEATURE_SWITCHES);

/**
 * `<feature>_access_level`, the same string each time: a key built afresh for every project made
 * V8 hash it anew on every entity (most of the entity's cost at 20 projects a page).
 */
const accessLevelKeys = new Map<string, string>();
function accessLevelKey(feature: string): string {
  let key = accessLevelKeys.get(feature);
  if (key === undefined) {
    key = `${feature}_access_level`;
    if (accessLevelKeys.size < 256) accessLevelKeys.set(feature, key);
  }
  return key;
}

/** GitLab's Project entity (lib/api/entities/project.rb), as the project and list endpoints answer. */
export function projectEntity(p: projects.Project, s: ProjectShaping) {
  const url = base(s.externalUrl);
  const basic = basicProjectEntity(p, s);
  const self = `${url}/api/v4/projects/${p.id}`;
  const ns = p.namespace!;
  const enabled = (feature: string) => p.accessLevels[feature] !== "disabled";
  const tier = planFeatures(s.plan);
  // Built by assignment, in the order and with the overrides of the object spread it replaces:
  // one literal of ~100 keys spread together from seven objects cost ~0.4 ms per project in V8.
  // It grows the basic entity itself: keys added to a spread copy of it cost ~2 us each (the copy's
  // map shares no transitions), ~75 of the ~90 us a project took.
  const out: Record<string, unknown> = basic;
  out._links = {
    self,
    ...(enabled("issues") ? { issues: `${self}/issues` } : {}),
    ...(enabled("merge_requests") ? { merge_requests: `${self}/merge_requests` } : {}),
    repo_branches: `${self}/repository/branches`,
    labels: `${self}/labels`,
    events: `${self}/events`,
    members: `${self}/members`,
    cluster_agents: `${self}/cluster_agents`,
  };
  out.empty_repo = true;
  out.archived = p.archived;
  out.visibility = p.visibility;
  Object.assign(
    out,
    ns.kind === "user"
      ? {
          owner: {
            id: ns.ownerId,
            username: ns.ownerUsername,
            name: ns.ownerName,
            state: ns.ownerState || "active",
            avatar_url: ns.ownerAvatarUrl || null,
            // Encoded as the user entities encode it (entities/user.ts): a username may need it.
            web_url: `${url}/${encodeURIComponent(ns.ownerUsername)}`,
          },
        }
      : {},
  );
  out.container_expiration_policy = {
    cadence: "1d",
    enabled: false,
    keep_n: 10,
    older_than: "90d",
    name_regex: ".*",
    name_regex_keep: null,
    next_run_at: iso(new Date((p.createdAt?.getTime() ?? 0) + 86_400_000)),
  };
  out.repository_object_format = "sha1";
  for (const [k, f] of FEATURE_SWITCH_ENTRIES) out[k] = enabled(f);
  for (const [f, level] of Object.entries(p.accessLevels)) out[accessLevelKey(f)] = level;
  out.service_desk_address = null;
  out.can_create_merge_request_in = p.accessLevel >= 30 && enabled("merge_requests");
  out.emails_enabled = !p.flags.emails_disabled;
  Object.assign(out, p.flags);
  Object.assign(out, p.numbers);
  Object.assign(
    out,
    Object.fromEntries(
      [
        "build_coverage_regex",
        "ci_config_path",
        "suggestion_commit_message",
        "merge_commit_template",
        "squash_commit_template",
        "issue_branch_template",
      ].map((k) => [k, p.texts[k] ?? null]),
    ),
  );
  Object.assign(out, p.texts);
  out.creator_id = p.creatorId;
  out.import_url = null;
  out.import_type = null;
  out.import_status = "none";
  out.import_error = null;
  out.open_issues_count = 0;
  out.description_html = p.description ? escapeHtml(p.description) : "";
  out.updated_at = iso(p.updatedAt);
  out.ci_separated_caches = true;
  out.ci_allow_fork_pipelines_to_run_in_parent_project = true;
  out.group_runners_enabled = true;
  out.runner_token_expiration_interval = null;
  out.enforce_auth_checks_on_uploads = true;
  out.shared_with_groups = p.sharedWithGroups.map((g) => ({
    group_id: g.groupId,
    group_name: g.groupName,
    group_full_path: g.groupFullPath,
    group_access_level: g.groupAccessLevel,
    expires_at: g.expiresAt || null,
  }));
  Object.assign(
    out,
    tier.adjournedDeletion
      ? {
          marked_for_deletion_at: p.markedForDeletionOn || null,
          marked_for_deletion_on: p.markedForDeletionOn || null,
        }
      : {},
  );
  out.compliance_frameworks = [];
  return out;
}

/** The single-project answer adds the caller's `permissions` (GitLab's ProjectWithAccess). */
export function projectWithAccessEntity(p: projects.Project, s: ProjectShaping) {
  const access = (level: number) => (level ? { access_level: level, notification_level: 3 } : null);
  const out = projectEntity(p, s);
  out.permissions = {
    project_access: access(p.projectAccessLevel),
    group_access: access(p.groupAccessLevel),
  };
  return out;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
