-- When the user's LDAP identity was last checked against the directory (GitLab's
-- users.last_credential_check_at): by the scheduled LDAP user check, or by an LDAP sign-in. NULL for
-- a user never checked, whom the next scheduled check takes first.
ALTER TABLE users ADD COLUMN IF NOT EXISTS last_credential_check_at timestamptz;

-- The scheduled check takes the users checked longest ago first.
CREATE INDEX IF NOT EXISTS users_last_credential_check_at ON users (last_credential_check_at NULLS FIRST, id);
