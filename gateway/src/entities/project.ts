import { planFeatures, type Plan } from "@canopy/kit";
import type { projects } from "@canopy/protos";
import { iso } from "./time";

/** What shaping a project needs besides the project: where links point and which tier is on. */
export interface ProjectShaping {
  externalUrl: string;
  plan: Plan;
}

const base = (url: string) => url.replace(/\/+$/, "");

/** GitLab's BasicProjectDetails (`simple=true`, and the first half of every Project). */
export function basicProjectEntity(p: projects.Project, s: ProjectShaping) {
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
      kind: ns.kind,
      full_path: ns.fullPath,
      parent_id: ns.parentId || null,
      avatar_url: ns.kind === "user" ? ns.ownerAvatarUrl || null : null,
      web_url: ns.kind === "user" ? `${url}/${ns.fullPath}` : `${url}/groups/${ns.fullPath}`,
    },
  };
}

const FEATURE_SWITCHES: Record<string, string> = {
  issues_enabled: "issues",
  merge_requests_enabled: "merge_requests",
  wiki_enabled: "wiki",
  jobs_enabled: "builds",
  snippets_enabled: "snippets",
  container_registry_enabled: "container_registry",
};

/** GitLab's Project entity (lib/api/entities/project.rb), as the project and list endpoints answer. */
export function projectEntity(p: projects.Project, s: ProjectShaping) {
  const url = base(s.externalUrl);
  const basic = basicProjectEntity(p, s);
  const self = `${url}/api/v4/projects/${p.id}`;
  const ns = p.namespace!;
  const enabled = (feature: string) => p.accessLevels[feature] !== "disabled";
  const tier = planFeatures(s.plan);
  return {
    ...basic,
    _links: {
      self,
      ...(enabled("issues") ? { issues: `${self}/issues` } : {}),
      ...(enabled("merge_requests") ? { merge_requests: `${self}/merge_requests` } : {}),
      repo_branches: `${self}/repository/branches`,
      labels: `${self}/labels`,
      events: `${self}/events`,
      members: `${self}/members`,
      cluster_agents: `${self}/cluster_agents`,
    },
    empty_repo: true,
    archived: p.archived,
    visibility: p.visibility,
    ...(ns.kind === "user"
      ? {
          owner: {
            id: ns.ownerId,
            username: ns.ownerUsername,
            name: ns.ownerName,
            state: ns.ownerState || "active",
            avatar_url: ns.ownerAvatarUrl || null,
            web_url: `${url}/${ns.ownerUsername}`,
          },
        }
      : {}),
    container_expiration_policy: {
      cadence: "1d",
      enabled: false,
      keep_n: 10,
      older_than: "90d",
      name_regex: ".*",
      name_regex_keep: null,
      next_run_at: iso(new Date((p.createdAt?.getTime() ?? 0) + 86_400_000)),
    },
    repository_object_format: "sha1",
    ...Object.fromEntries(Object.entries(FEATURE_SWITCHES).map(([k, f]) => [k, enabled(f)])),
    ...Object.fromEntries(Object.entries(p.accessLevels).map(([f, level]) => [`${f}_access_level`, level])),
    service_desk_address: null,
    can_create_merge_request_in: p.accessLevel >= 30 && enabled("merge_requests"),
    emails_enabled: !p.flags.emails_disabled,
    ...p.flags,
    ...p.numbers,
    ...Object.fromEntries(
      [
        "build_coverage_regex",
        "ci_config_path",
        "suggestion_commit_message",
        "merge_commit_template",
        "squash_commit_template",
        "issue_branch_template",
      ].map((k) => [k, p.texts[k] ?? null]),
    ),
    ...p.texts,
    creator_id: p.creatorId,
    import_url: null,
    import_type: null,
    import_status: "none",
    import_error: null,
    open_issues_count: 0,
    description_html: p.description ? escapeHtml(p.description) : "",
    updated_at: iso(p.updatedAt),
    ci_separated_caches: true,
    ci_allow_fork_pipelines_to_run_in_parent_project: true,
    group_runners_enabled: true,
    runner_token_expiration_interval: null,
    enforce_auth_checks_on_uploads: true,
    shared_with_groups: p.sharedWithGroups.map((g) => ({
      group_id: g.groupId,
      group_name: g.groupName,
      group_full_path: g.groupFullPath,
      group_access_level: g.groupAccessLevel,
      expires_at: g.expiresAt || null,
    })),
    ...(tier.adjournedDeletion
      ? {
          marked_for_deletion_at: p.markedForDeletionOn || null,
          marked_for_deletion_on: p.markedForDeletionOn || null,
        }
      : {}),
    compliance_frameworks: [],
  };
}

/** The single-project answer adds the caller's `permissions` (GitLab's ProjectWithAccess). */
export function projectWithAccessEntity(p: projects.Project, s: ProjectShaping) {
  const access = (level: number) => (level ? { access_level: level, notification_level: 3 } : null);
  return {
    ...projectEntity(p, s),
    permissions: { project_access: access(p.projectAccessLevel), group_access: access(p.groupAccessLevel) },
  };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
