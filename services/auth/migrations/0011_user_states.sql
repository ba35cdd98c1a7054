-- GitLab's user states beyond active and blocked (User's state machine): ldap_blocked (the
-- directory refused the person), blocked_pending_approval (waits for an administrator),
-- banned and deactivated. Every state but active refuses the user's tokens.
ALTER TABLE users DROP CONSTRAINT IF EXISTS users_state_check;
ALTER TABLE users ADD CONSTRAINT users_state_check CHECK (
  state IN ('active', 'blocked', 'ldap_blocked', 'blocked_pending_approval', 'banned', 'deactivated')
);

-- The day of the user's last activity (GitLab's users.last_activity_on): deactivation is refused
-- for a user active within the dormant period. Written by whatever records activity; only read here.
ALTER TABLE users ADD COLUMN IF NOT EXISTS last_activity_on date;
