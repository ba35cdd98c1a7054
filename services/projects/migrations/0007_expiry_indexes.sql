-- The daily removal of expired project memberships and shares (commands/member-removals.ts) finds
-- them by date; few rows ever carry one.
CREATE INDEX project_members_expires_at ON project_members (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX project_group_links_expires_at ON project_group_links (expires_at) WHERE expires_at IS NOT NULL;
