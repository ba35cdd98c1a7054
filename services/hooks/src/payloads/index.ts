/**
 * GitLab's webhook payloads for the events a group hook receives, the test endpoint's samples, and
 * custom payload templates. Every builder is a pure function of plain values and returns the
 * payload with its trigger and `X-Gitlab-Event` header.
 */

/** The inputs builders take. */
export type {
  HookGroup,
  HookUser,
  HookProject,
  HookMembership,
  ProjectVisibility,
  BuiltHookPayload,
} from "./types";
/** Trigger scopes, their hook flags and `X-Gitlab-Event` values. */
export { HOOK_TRIGGERS, eventHeaderOf, triggerOfFlag, type HookTrigger, type HookFlag } from "./triggers";
/** `subgroup_create` / `subgroup_destroy` (to the parent's hooks). */
export { buildSubgroupPayload, type SubgroupEventName, type SubgroupPayload } from "./subgroup-events";
/** Member events; `memberUpdateIsReported` says whether an update fires at all. */
export {
  buildMemberPayload,
  humanAccess,
  memberUpdateIsReported,
  MEMBER_EVENT_NAMES,
  type MemberEventName,
  type MemberPayload,
} from "./member-events";
/** `project_create` / `project_destroy`. */
export {
  buildProjectPayload,
  webhookEmail,
  type ProjectEventName,
  type ProjectPayload,
} from "./project-events";
/** The test endpoint: accepted triggers, samples, and GitLab's refusals. */
export {
  buildTestPayload,
  isTestTrigger,
  TEST_TRIGGERS,
  UNKNOWN_TRIGGER_ANSWER,
  TESTING_NOT_AVAILABLE_ANSWER,
  NO_PROJECT_ANSWER,
  NO_VULNERABILITY_PROJECT_ANSWER,
  type TestTrigger,
  type TestPayload,
  type TestPayloadInput,
} from "./test-payloads";
/** `custom_webhook_template` rendering and its errors. */
export {
  renderCustomTemplate,
  ARRAY_ACCESS_MESSAGE,
  CUSTOM_TEMPLATE_MAX_LENGTH,
  type RenderedTemplate,
} from "./custom-template";
/** Date formats payloads use. */
export { xmlschema, dayXmlschema, rubyUtc } from "./dates";
