-- GitLab's namespace setting `allow_mfa_for_subgroups` (meaningful on top-level groups only): when
-- false, no subgroup of the tree may require two-factor authentication.
ALTER TABLE namespaces ADD COLUMN allow_mfa_for_subgroups boolean NOT NULL DEFAULT true;

-- The user's e-mail, from auth's UserSnapshot (administrators see it in member lists). Copies made
-- before snapshots carried it stay empty until auth publishes them again (its migration 0007).
ALTER TABLE users ADD COLUMN email text NOT NULL DEFAULT '';

-- The daily removal of expired memberships and shares looks them up by date.
CREATE INDEX members_expires_at ON members (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX group_links_expires_at ON group_links (expires_at) WHERE expires_at IS NOT NULL;
