import { GROUP_HOOK_FLAGS } from "@canopy/kit";
import { z } from "zod";
import { entity, integer, timestamp } from "./registry";

const keyOnly = z.array(z.object({ key: z.string() }));
/**
 * The flags the entity shows: a group hook's own, and repository_update_events after
 * merge_requests_events, which GitLab's Hook entity shows for every hook (a system hook's flag, so
 * always false on a group hook).
 */
const ENTITY_FLAGS = GROUP_HOOK_FLAGS.flatMap((f) =>
  f === "merge_requests_events" ? [f, "repository_update_events"] : [f],
);

export const GroupHook = entity(
  "GroupHook",
  "A group webhook; the token is never shown, url_variables and custom_headers only by key.",
  z.object({
    id: integer,
    url: z.string(),
    name: z.string(),
    description: z.string(),
    created_at: timestamp.nullable(),
    enable_ssl_verification: z.boolean(),
    alert_status: z.string(),
    disabled_until: timestamp.nullable(),
    url_variables: keyOnly,
    push_events_branch_filter: z.string().nullable(),
    branch_filter_strategy: z.string(),
    custom_webhook_template: z.string().nullable(),
    custom_headers: keyOnly,
    group_id: integer,
    ...Object.fromEntries(ENTITY_FLAGS.map((f) => [f, z.boolean()])),
  }),
);

/** The create answer: the hook and, this once, its Standard Webhooks signing secret. */
export const CreatedGroupHook = entity(
  "CreatedGroupHook",
  "A group webhook just created, with its signing secret (shown only here).",
  GroupHook.extend({ signing_secret: z.string() }),
);

export const SigningSecret = entity(
  "SigningSecret",
  "A hook's new Standard Webhooks signing secret, shown once.",
  z.object({ signing_secret: z.string() }),
);

export const HookLog = entity(
  "HookLog",
  "One delivery attempt of a webhook (the last 7 days are listed).",
  z.object({
    id: integer,
    url: z.string(),
    trigger: z.string(),
    request_headers: z.record(z.string(), z.unknown()),
    request_data: z.unknown(),
    response_headers: z.record(z.string(), z.unknown()),
    response_body: z.string(),
    execution_duration: z.number(),
    response_status: z.string(),
    created_at: timestamp.nullable(),
  }),
);

export const HookTestAnswer = entity(
  "HookTestAnswer",
  "What POST .../test/:trigger answers when the receiver took the sample.",
  z.object({ message: z.string() }),
);

export const HookResendAnswer = entity(
  "HookResendAnswer",
  "What a resend answers: the receiver's status.",
  z.object({ response_status: z.union([integer, z.string()]) }),
);
