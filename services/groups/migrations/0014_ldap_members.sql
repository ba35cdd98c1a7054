-- LDAP group sync (the ldap service's DesiredLdapMembers command, applied by events/ldap-members.ts).
-- `ldap` marks a membership the directory manages (GitLab's members.ldap): a later sync removes it
-- when the user is in no linked directory group any more; memberships without it are never removed.
ALTER TABLE members ADD COLUMN ldap boolean NOT NULL DEFAULT false;

-- The last sync generation applied per group: a command at or below it (redelivered, or overtaken
-- by a newer sync) changes nothing.
CREATE TABLE ldap_member_syncs (
  namespace_id bigint PRIMARY KEY REFERENCES namespaces (id) ON DELETE CASCADE,
  generation   bigint NOT NULL,
  applied_at   timestamptz NOT NULL DEFAULT now()
);
