import { HOOK_TEST_TRIGGERS } from "@canopy/kit";
/**
 * `POST /groups/:id/hooks/:hook_id/test/:trigger` (lib/api/hooks/trigger_test.rb,
 * TestHooks::*Service, Integrations::ProjectTestData): which triggers the endpoint accepts, and the
 * sample payload each sends. The API layer answers a refusal with `status` and `body` as given;
 * after a delivery it answers 201 `{"message":"201 Created"}` for a 2xx and 422 with the
 * receiver's body (or the transport error) as `message` otherwise.
 */
import { built, type HookTrigger } from "./triggers";
import type { HookGroup, HookProject, HookUser } from "./types";
import type { SampleContext } from "./sample-parts";
import {
  sampleEmoji,
  sampleIssue,
  sampleMergeRequest,
  sampleNote,
  samplePush,
  sampleWikiPage,
} from "./sample-repository-events";
import {
  sampleAccessToken,
  sampleDeployment,
  sampleJob,
  samplePipeline,
  sampleRelease,
  sampleVulnerability,
} from "./sample-ci-events";

/**
 * The `:trigger` values the endpoint accepts: ProjectHook's trigger flags (the API validates
 * against them even for group hooks). `member_events`, `subgroup_events` and `project_events`
 * are not among them.
 */
export const TEST_TRIGGERS = HOOK_TEST_TRIGGERS;

export type TestTrigger = (typeof TEST_TRIGGERS)[number];

/** Any other `:trigger`: Grape's `values` check, 400. */
export const UNKNOWN_TRIGGER_ANSWER = {
  status: 400,
  body: { error: "trigger does not have a valid value" },
} as const;
/** A trigger GitLab accepts but has no sample for (confidential notes, feature flags): 422. */
export const TESTING_NOT_AVAILABLE_ANSWER = {
  status: 422,
  body: { message: "Testing not available for this hook" },
} as const;
/** The group has no project to take the sample from: 422. */
export const NO_PROJECT_ANSWER = {
  status: 422,
  body: { message: "Ensure the group has a project with commits." },
} as const;
/** The same, for `vulnerability_events`. */
export const NO_VULNERABILITY_PROJECT_ANSWER = {
  status: 422,
  body: { message: "Ensure the group has a project with vulnerabilities." },
} as const;

type Sample = (ctx: SampleContext) => unknown;

const SAMPLES: Partial<Record<TestTrigger, { trigger: HookTrigger; build: Sample }>> = {
  push_events: { trigger: "push_hooks", build: (ctx) => samplePush(ctx, false) },
  tag_push_events: { trigger: "tag_push_hooks", build: (ctx) => samplePush(ctx, true) },
  issues_events: { trigger: "issue_hooks", build: sampleIssue },
  confidential_issues_events: { trigger: "confidential_issue_hooks", build: sampleIssue },
  note_events: { trigger: "note_hooks", build: sampleNote },
  merge_requests_events: { trigger: "merge_request_hooks", build: sampleMergeRequest },
  job_events: { trigger: "job_hooks", build: sampleJob },
  pipeline_events: { trigger: "pipeline_hooks", build: samplePipeline },
  wiki_page_events: { trigger: "wiki_page_hooks", build: sampleWikiPage },
  deployment_events: { trigger: "deployment_hooks", build: sampleDeployment },
  releases_events: { trigger: "release_hooks", build: sampleRelease },
  emoji_events: { trigger: "emoji_hooks", build: sampleEmoji },
  resource_access_token_events: { trigger: "resource_access_token_hooks", build: sampleAccessToken },
  vulnerability_events: { trigger: "vulnerability_hooks", build: sampleVulnerability },
};

export interface TestPayloadInput {
  /** The `:trigger` path parameter, unchecked. */
  trigger: string;
  group: HookGroup;
  /** The group's first project, subgroups included; null when it has none. */
  project: HookProject | null;
  /** The caller. */
  user: HookUser;
  instanceUrl: string;
  now?: Date;
}

export type TestPayload =
  | { ok: true; trigger: HookTrigger; eventHeader: string; payload: unknown }
  | { ok: false; status: number; body: { error: string } | { message: string } };

export const isTestTrigger = (value: string): value is TestTrigger =>
  (TEST_TRIGGERS as readonly string[]).includes(value);

/** The sample to deliver for a test, or the answer GitLab gives instead. */
export function buildTestPayload(input: TestPayloadInput): TestPayload {
  if (!isTestTrigger(input.trigger)) return { ok: false, ...UNKNOWN_TRIGGER_ANSWER };
  if (!input.project) {
    const answer =
      input.trigger === "vulnerability_events" ? NO_VULNERABILITY_PROJECT_ANSWER : NO_PROJECT_ANSWER;
    return { ok: false, ...answer };
  }
  const sample = SAMPLES[input.trigger];
  if (!sample) return { ok: false, ...TESTING_NOT_AVAILABLE_ANSWER };
  const ctx: SampleContext = {
    group: input.group,
    project: input.project,
    user: input.user,
    instanceUrl: input.instanceUrl,
    now: input.now ?? new Date(),
  };
  return { ok: true, ...built(sample.trigger, sample.build(ctx)) };
}
