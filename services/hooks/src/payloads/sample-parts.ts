/**
 * The blocks every project-level payload shares (Project#hook_attrs, User#hook_attrs, the
 * `repository` block), built from Canopy's project and user, for the test endpoint's samples.
 * Canopy hosts no repositories, so URLs are derived from the instance URL as GitLab derives them.
 */
import { REDACTED } from "@canopy/kit";
import type { HookGroup, HookProject, HookUser } from "./types";

/** What every sample is made from. */
export interface SampleContext {
  group: HookGroup;
  project: HookProject;
  /** The caller of the test endpoint (GitLab's current_user). */
  user: HookUser;
  instanceUrl: string;
  now: Date;
}

const VISIBILITY_LEVELS = { private: 0, internal: 10, public: 20 } as const;

export const SAMPLE_SHA = "da1560886d4f094c3e6c9ef40349f7d38b5d27d7";
export const BLANK_SHA = "0000000000000000000000000000000000000000";

const base = (ctx: SampleContext) => ctx.instanceUrl.replace(/\/+$/, "");
export const projectWebUrl = (ctx: SampleContext) => `${base(ctx)}/${ctx.project.pathWithNamespace}`;
export const defaultBranch = (ctx: SampleContext) => ctx.project.defaultBranch ?? "main";

function gitUrls(ctx: SampleContext) {
  const host = new URL(base(ctx)).hostname;
  return {
    ssh: `git@${host}:${ctx.project.pathWithNamespace}.git`,
    http: `${projectWebUrl(ctx)}.git`,
  };
}

/** Project#hook_attrs. */
export function projectBlock(ctx: SampleContext) {
  const { project } = ctx;
  const git = gitUrls(ctx);
  return {
    id: project.id,
    name: project.name,
    description: project.description ?? "",
    web_url: projectWebUrl(ctx),
    avatar_url: null,
    git_ssh_url: git.ssh,
    git_http_url: git.http,
    namespace: ctx.group.name,
    visibility_level: VISIBILITY_LEVELS[project.visibility],
    path_with_namespace: project.pathWithNamespace,
    default_branch: defaultBranch(ctx),
    ci_config_path: null,
    homepage: projectWebUrl(ctx),
    url: git.ssh,
    ssh_url: git.ssh,
    http_url: git.http,
  };
}

/** The `repository` block of push and issue-like payloads. */
export function repositoryBlock(ctx: SampleContext) {
  const git = gitUrls(ctx);
  return {
    name: ctx.project.name,
    url: git.ssh,
    description: ctx.project.description ?? "",
    homepage: projectWebUrl(ctx),
    git_http_url: git.http,
    git_ssh_url: git.ssh,
    visibility_level: VISIBILITY_LEVELS[ctx.project.visibility],
  };
}

/** User#hook_attrs: the email only when public. */
export function userBlock(user: HookUser) {
  return {
    id: user.id,
    name: user.name,
    username: user.username,
    avatar_url: user.avatarUrl ?? null,
    email: user.publicEmail || REDACTED,
  };
}

/** A sample commit by the caller. */
export function sampleCommit(ctx: SampleContext, timestamp: string) {
  return {
    id: SAMPLE_SHA,
    message: "Sample commit\n",
    title: "Sample commit",
    timestamp,
    url: `${projectWebUrl(ctx)}/-/commit/${SAMPLE_SHA}`,
    author: { name: ctx.user.name, email: ctx.user.publicEmail || REDACTED },
  };
}
