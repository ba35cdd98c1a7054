-- TOTP two-factor authentication. users.two_factor_enabled stays the one flag everything reads (the
-- API, the password grant, sign-in); these tables hold what checking a code needs.
--
-- The secret is encrypted (AES-256-GCM, key derived from the instance key), not hashed: checking a
-- code needs the secret itself. last_used_step is the 30-second TOTP step of the last accepted code,
-- so a code is accepted once only, whichever replica sees it (the update is conditional on it).
CREATE TABLE user_two_factor (
  user_id          bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  secret_encrypted bytea NOT NULL,
  -- NULL while enrolment is pending (the secret has been shown but no code confirmed yet).
  enabled_at       timestamptz,
  last_used_step   bigint,
  created_at       timestamptz NOT NULL DEFAULT now()
);

-- Single-use recovery codes, stored as a keyed hash like tokens; used_at set when spent.
CREATE TABLE user_recovery_codes (
  id          bigserial PRIMARY KEY,
  user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_digest text NOT NULL,
  used_at     timestamptz,
  UNIQUE (user_id, code_digest)
);
