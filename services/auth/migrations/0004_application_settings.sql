-- Instance-wide settings (GitLab's application_settings): exactly one row, typed columns with
-- GitLab's defaults. `version` grows with every change so readers of the NATS KV mirror can tell
-- a newer snapshot from an older one.
CREATE TABLE application_settings (
  id                                                boolean PRIMARY KEY DEFAULT true CHECK (id),
  version                                           bigint NOT NULL DEFAULT 1,
  allow_local_requests_from_web_hooks_and_services  boolean NOT NULL DEFAULT false,
  outbound_local_requests_whitelist                 text[] NOT NULL DEFAULT '{}',
  dns_rebinding_protection_enabled                  boolean NOT NULL DEFAULT true,
  deny_all_requests_except_allowed                  boolean NOT NULL DEFAULT false,
  deletion_adjourned_period                         integer NOT NULL DEFAULT 7
    CHECK (deletion_adjourned_period BETWEEN 1 AND 90),
  default_group_visibility                          text NOT NULL DEFAULT 'private'
    CHECK (default_group_visibility IN ('private', 'internal', 'public')),
  default_project_visibility                        text NOT NULL DEFAULT 'private'
    CHECK (default_project_visibility IN ('private', 'internal', 'public')),
  allow_group_owners_to_manage_ldap                 boolean NOT NULL DEFAULT true,
  password_authentication_enabled_for_web           boolean NOT NULL DEFAULT true,
  require_two_factor_authentication                 boolean NOT NULL DEFAULT false,
  two_factor_grace_period                           integer NOT NULL DEFAULT 48 CHECK (two_factor_grace_period >= 0),
  -- Canopy has no sign-up; kept so GitLab clients that send it get it back.
  signup_enabled                                    boolean NOT NULL DEFAULT false,
  created_at                                        timestamptz NOT NULL DEFAULT now(),
  updated_at                                        timestamptz NOT NULL DEFAULT now()
);

INSERT INTO application_settings DEFAULT VALUES;
