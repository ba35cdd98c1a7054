-- The public e-mail (UserSnapshot.public_email): project payloads name a project's owners by it,
-- `[REDACTED]` for those without one. Auth's migration 0009 publishes every user's snapshot again,
-- so copies made before this column catch up.
ALTER TABLE users ADD COLUMN public_email text NOT NULL DEFAULT '';
