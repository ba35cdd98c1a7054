-- Impersonation tokens (GitLab's personal_access_tokens.impersonation): personal access tokens an
-- administrator made for a user. They act as the user; the owner neither lists nor revokes them.
ALTER TABLE personal_access_tokens ADD COLUMN impersonation boolean NOT NULL DEFAULT false;

-- The day of a user's last activity (GitLab's users.last_activity_on), written at most once a day
-- per user. Another change may add the same column first: hence IF NOT EXISTS.
ALTER TABLE users ADD COLUMN IF NOT EXISTS last_activity_on date;
CREATE INDEX IF NOT EXISTS users_last_activity_on ON users (last_activity_on, id)
  WHERE last_activity_on IS NOT NULL;

-- A user's status (GitLab's user_statuses): at most one per user, gone with the user. A status
-- past clear_status_at is treated as absent when read, and deleted on the user's next write.
CREATE TABLE user_statuses (
  user_id         bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  emoji           text NOT NULL,
  message         text,
  availability    text NOT NULL DEFAULT 'not_set' CHECK (availability IN ('not_set', 'busy')),
  clear_status_at timestamptz,
  updated_at      timestamptz NOT NULL DEFAULT now()
);
