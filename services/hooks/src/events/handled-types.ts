import { AUTH_EVENTS, GROUPS_EVENTS, PROJECTS_EVENTS } from "@canopy/protos";

/** The events applyEvent (hook-events.ts) reads; the stream's others (copies changed, LDAP, ...) are acked unread. */
export const HANDLED_TYPES = new Set(
  [
    GROUPS_EVENTS.groupCreated,
    GROUPS_EVENTS.groupUpdated,
    GROUPS_EVENTS.groupTransferred,
    GROUPS_EVENTS.groupMarkedForDeletion,
    GROUPS_EVENTS.groupRestored,
    GROUPS_EVENTS.namespaceRepublished,
    GROUPS_EVENTS.groupRemoved,
    GROUPS_EVENTS.memberAdded,
    GROUPS_EVENTS.memberUpdated,
    GROUPS_EVENTS.memberRemoved,
    GROUPS_EVENTS.membershipRepublished,
    PROJECTS_EVENTS.projectCreated,
    PROJECTS_EVENTS.projectUpdated,
    PROJECTS_EVENTS.projectArchived,
    PROJECTS_EVENTS.projectUnarchived,
    PROJECTS_EVENTS.projectMarkedForDeletion,
    PROJECTS_EVENTS.projectRestored,
    PROJECTS_EVENTS.projectTransferred,
    PROJECTS_EVENTS.projectRepublished,
    PROJECTS_EVENTS.projectRemoved,
    AUTH_EVENTS.userCreated,
    AUTH_EVENTS.userUpdated,
    AUTH_EVENTS.userBlocked,
    AUTH_EVENTS.userUnblocked,
    AUTH_EVENTS.userDeleted,
  ].map((kind) => kind.type),
);
