-- Instance-wide secrets generated on first start (the key that seals hook secrets when
-- CANOPY_SECRET_KEY is unset), shared by every replica. Same shape as auth's table of that name.
CREATE TABLE instance_secrets (
  name  text PRIMARY KEY,
  value bytea NOT NULL
);

-- Group hooks (GitLab's web_hooks of type GroupHook). The url, token, url_variables and
-- custom_headers are sealed (AES-256-GCM, kit secret-box) with the hook id as context, as is the
-- Standard Webhooks signing secret. `recent_failures` and `disabled_until` are GitLab's
-- auto-disabling state.
CREATE TABLE hooks (
  id                            bigserial PRIMARY KEY,
  group_id                      bigint NOT NULL,
  name                          text NOT NULL DEFAULT '',
  description                   text NOT NULL DEFAULT '',
  url_sealed                    bytea NOT NULL,
  token_sealed                  bytea,
  url_variables_sealed          bytea NOT NULL,
  custom_headers_sealed         bytea NOT NULL,
  signing_secret_sealed         bytea NOT NULL,
  enable_ssl_verification       boolean NOT NULL DEFAULT true,
  push_events_branch_filter     text,
  branch_filter_strategy        text NOT NULL DEFAULT 'wildcard',
  custom_webhook_template       text,
  push_events                   boolean NOT NULL DEFAULT true,
  tag_push_events               boolean NOT NULL DEFAULT false,
  merge_requests_events         boolean NOT NULL DEFAULT false,
  issues_events                 boolean NOT NULL DEFAULT false,
  confidential_issues_events    boolean NOT NULL DEFAULT false,
  note_events                   boolean NOT NULL DEFAULT false,
  confidential_note_events      boolean NOT NULL DEFAULT false,
  pipeline_events               boolean NOT NULL DEFAULT false,
  wiki_page_events              boolean NOT NULL DEFAULT false,
  job_events                    boolean NOT NULL DEFAULT false,
  deployment_events             boolean NOT NULL DEFAULT false,
  feature_flag_events           boolean NOT NULL DEFAULT false,
  releases_events               boolean NOT NULL DEFAULT false,
  milestone_events              boolean NOT NULL DEFAULT false,
  subgroup_events               boolean NOT NULL DEFAULT false,
  emoji_events                  boolean NOT NULL DEFAULT false,
  resource_access_token_events  boolean NOT NULL DEFAULT false,
  member_events                 boolean NOT NULL DEFAULT false,
  vulnerability_events          boolean NOT NULL DEFAULT false,
  project_events                boolean NOT NULL DEFAULT false,
  recent_failures               smallint NOT NULL DEFAULT 0,
  disabled_until                timestamptz,
  created_at                    timestamptz NOT NULL DEFAULT now(),
  updated_at                    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX hooks_group_id ON hooks (group_id, id);

-- Deliveries not yet done: one row per (event, hook), written by the events consumer in the
-- transaction that records the event as handled, so an event is turned into deliveries exactly once.
-- A worker takes due rows with FOR UPDATE SKIP LOCKED and leases them while it sends; a delivered
-- or finally failed row is deleted (its attempts are in hook_logs). `seq` is the event's place in
-- the stream: a hook's deliveries go out in that order (worker/claim.ts).
CREATE TABLE deliveries (
  id              bigserial PRIMARY KEY,
  hook_id         bigint NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
  event_id        text NOT NULL,
  seq             bigint NOT NULL,
  trigger         text NOT NULL,
  payload         jsonb NOT NULL,
  idempotency_key uuid NOT NULL,
  event_uuid      uuid NOT NULL,
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  leased_until    timestamptz,
  occurred_at     timestamptz NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (event_id, hook_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at);
CREATE INDEX deliveries_hook_order ON deliveries (hook_id, seq, id);

-- One row per HTTP attempt (GitLab's web_hook_logs), kept CANOPY_HOOK_LOG_RETENTION_DAYS (14).
-- request_data holds what a resend sends again: the payload with e-mail addresses redacted.
CREATE TABLE hook_logs (
  id                     bigserial PRIMARY KEY,
  hook_id                bigint NOT NULL REFERENCES hooks (id) ON DELETE CASCADE,
  trigger                text NOT NULL,
  url                    text NOT NULL,
  url_hash               text NOT NULL,
  request_headers        jsonb NOT NULL,
  request_data           jsonb NOT NULL,
  response_headers       jsonb NOT NULL,
  response_body          text NOT NULL DEFAULT '',
  response_status        text NOT NULL,
  execution_duration     double precision NOT NULL DEFAULT 0,
  internal_error_message text,
  idempotency_key        uuid NOT NULL,
  created_at             timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX hook_logs_hook_created ON hook_logs (hook_id, created_at DESC, id DESC);
CREATE INDEX hook_logs_created ON hook_logs (created_at);
