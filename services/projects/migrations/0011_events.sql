-- GitLab's events of what Canopy hosts: a project created, a user joining or leaving it (or
-- removed on expiry). Written in the transaction of the change itself; gone with their project.
CREATE TABLE events (
  id bigserial PRIMARY KEY,
  project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  author_id bigint NOT NULL,
  -- created, joined, left, expired (GitLab's Event.actions names).
  action text NOT NULL,
  -- Empty for project events (GitLab's create_event without a target).
  target_id bigint,
  target_type text,
  created_at timestamptz NOT NULL DEFAULT now()
);

-- GET /events and /users/:id/events (by author), GET /projects/:id/events, newest or oldest first.
CREATE INDEX events_author_id ON events (author_id, id);
CREATE INDEX events_project_id ON events (project_id, id);
