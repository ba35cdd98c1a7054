/**
 * Samples of the CI/CD and release events the test endpoint sends (job, pipeline, deployment,
 * release, resource access token, vulnerability), shaped as doc/user/project/integrations/
 * webhook_events.md documents them. Canopy runs no CI and hosts no releases: ids and statuses are
 * sample values around the real project and user.
 */
import { REDACTED } from "@canopy/kit";
import { rubyUtc, xmlschema } from "./dates";
import {
  defaultBranch,
  projectBlock,
  projectWebUrl,
  repositoryBlock,
  SAMPLE_SHA,
  sampleCommit,
  userBlock,
  type SampleContext,
} from "./sample-parts";

const PIPELINE_ID = 1;
const JOB_ID = 1;

/** Gitlab::DataBuilder::Build.build. */
export function sampleJob(ctx: SampleContext) {
  const at = rubyUtc(ctx.now);
  const { git_ssh_url, git_http_url } = projectBlock(ctx);
  const repo = repositoryBlock(ctx);
  return {
    object_kind: "build",
    ref: defaultBranch(ctx),
    tag: false,
    before_sha: SAMPLE_SHA,
    sha: SAMPLE_SHA,
    build_id: JOB_ID,
    build_name: "test",
    build_stage: "test",
    build_status: "created",
    build_created_at: at,
    build_created_at_iso: xmlschema(ctx.now),
    build_started_at: null,
    build_started_at_iso: null,
    build_finished_at: null,
    build_finished_at_iso: null,
    build_duration: null,
    build_queued_duration: null,
    build_allow_failure: false,
    build_failure_reason: "unknown_failure",
    retries_count: 0,
    pipeline_id: PIPELINE_ID,
    project_id: ctx.project.id,
    project_name: `${ctx.group.fullName ?? ctx.group.name} / ${ctx.project.name}`,
    user: {
      id: ctx.user.id,
      name: ctx.user.name,
      username: ctx.user.username,
      avatar_url: ctx.user.avatarUrl ?? null,
      email: ctx.user.publicEmail || REDACTED,
    },
    commit: {
      id: PIPELINE_ID,
      name: null,
      sha: SAMPLE_SHA,
      message: "Sample commit\n",
      author_name: ctx.user.name,
      author_email: ctx.user.publicEmail || REDACTED,
      author_url: `${ctx.instanceUrl.replace(/\/+$/, "")}/${ctx.user.username}`,
      status: "created",
      duration: null,
      started_at: null,
      started_at_iso: null,
      finished_at: null,
      finished_at_iso: null,
    },
    repository: {
      name: repo.name,
      url: repo.url,
      description: repo.description,
      homepage: repo.homepage,
      git_http_url,
      git_ssh_url,
      visibility_level: repo.visibility_level,
    },
    project: projectBlock(ctx),
    runner: null,
    environment: null,
  };
}

/** Gitlab::DataBuilder::Pipeline.build. */
export function samplePipeline(ctx: SampleContext) {
  const at = rubyUtc(ctx.now);
  return {
    object_kind: "pipeline",
    object_attributes: {
      id: PIPELINE_ID,
      iid: 1,
      name: null,
      ref: defaultBranch(ctx),
      tag: false,
      sha: SAMPLE_SHA,
      before_sha: SAMPLE_SHA,
      source: "push",
      status: "created",
      detailed_status: "created",
      stages: ["test"],
      created_at: at,
      finished_at: null,
      duration: null,
      queued_duration: null,
      variables: [],
      url: `${projectWebUrl(ctx)}/-/pipelines/${PIPELINE_ID}`,
    },
    merge_request: null,
    user: userBlock(ctx.user),
    project: projectBlock(ctx),
    commit: sampleCommit(ctx, xmlschema(ctx.now)),
    builds: [
      {
        id: JOB_ID,
        stage: "test",
        name: "test",
        status: "created",
        created_at: at,
        started_at: null,
        finished_at: null,
        duration: null,
        queued_duration: null,
        failure_reason: null,
        when: "on_success",
        manual: false,
        allow_failure: false,
        user: userBlock(ctx.user),
        runner: null,
        artifacts_file: { filename: null, size: null },
        environment: null,
      },
    ],
  };
}

/** Gitlab::DataBuilder::Deployment.build. */
export function sampleDeployment(ctx: SampleContext) {
  const web = projectWebUrl(ctx);
  const offset = ctx.now
    .toISOString()
    .replace("T", " ")
    .replace(/\.\d{3}Z$/, " +0000");
  return {
    object_kind: "deployment",
    status: "success",
    status_changed_at: offset,
    deployment_id: 1,
    deployable_id: JOB_ID,
    deployable_url: `${web}/-/jobs/${JOB_ID}`,
    environment: "production",
    environment_tier: "production",
    environment_slug: "production",
    environment_external_url: null,
    project: projectBlock(ctx),
    short_sha: SAMPLE_SHA.slice(0, 8),
    user: userBlock(ctx.user),
    user_url: `${ctx.instanceUrl.replace(/\/+$/, "")}/${ctx.user.username}`,
    commit_url: `${web}/-/commit/${SAMPLE_SHA}`,
    commit_title: "Sample commit",
  };
}

/** Release#to_hook_data('create'). */
export function sampleRelease(ctx: SampleContext) {
  const web = projectWebUrl(ctx);
  const at = rubyUtc(ctx.now);
  const archive = (format: string) => ({
    format,
    url: `${web}/-/archive/v1.0.0/${ctx.project.path}-v1.0.0.${format}`,
  });
  return {
    id: 1,
    created_at: at,
    description: "A sample release sent by a webhook test.",
    name: "v1.0.0",
    released_at: at,
    tag: "v1.0.0",
    object_kind: "release",
    project: projectBlock(ctx),
    url: `${web}/-/releases/v1.0.0`,
    action: "create",
    assets: { count: 4, links: [], sources: ["zip", "tar.gz", "tar.bz2", "tar"].map(archive) },
    commit: sampleCommit(ctx, xmlschema(ctx.now)),
  };
}

/** Gitlab::DataBuilder::ResourceAccessToken.build(token, :expiring, project): a token due in 2 days. */
export function sampleAccessToken(ctx: SampleContext) {
  const expires = new Date(ctx.now.getTime() + 2 * 86_400_000).toISOString().slice(0, 10);
  return {
    object_kind: "access_token",
    project: projectBlock(ctx),
    object_attributes: {
      user_id: ctx.user.id,
      created_at: rubyUtc(ctx.now),
      id: 1,
      name: "pat_for_webhook_event",
      expires_at: expires,
    },
    event_name: "expiring_access_token",
  };
}

/** Gitlab::DataBuilder::Vulnerability.build. */
export function sampleVulnerability(ctx: SampleContext) {
  const at = ctx.now.toISOString();
  return {
    object_kind: "vulnerability",
    object_attributes: {
      url: `${projectWebUrl(ctx)}/-/security/vulnerabilities/1`,
      title: "Sample vulnerability",
      state: "detected",
      project_id: ctx.project.id,
      location: { file: "package-lock.json" },
      cvss: [],
      severity: "unknown",
      severity_overridden: false,
      identifiers: [],
      issues: [],
      report_type: "dependency_scanning",
      confidence: "unknown",
      confidence_overridden: false,
      confirmed_at: null,
      confirmed_by_id: null,
      dismissed_at: null,
      dismissed_by_id: null,
      resolved_at: null,
      resolved_by_id: null,
      auto_resolved: false,
      resolved_on_default_branch: false,
      created_at: at,
      updated_at: at,
    },
  };
}
