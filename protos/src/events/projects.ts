import * as copies from "../gen/canopy/projects/v1/copies";
import * as backfillEvents from "../gen/canopy/projects/v1/backfill_events";
import * as events from "../gen/canopy/projects/v1/events";
import * as groupProjectEvents from "../gen/canopy/projects/v1/group_project_events";
import * as projectLifecycle from "../gen/canopy/projects/v1/project_lifecycle";

/** The projects context's events, under `canopy.projects.` (shape: the kit's `EventKind`, see auth.ts). */
const kind = <T>(
  leaf: string,
  type: string,
  codec: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T },
) => ({
  subject: `canopy.projects.${leaf}`,
  type: `canopy.projects.v1.${type}`,
  codec,
});

export const PROJECTS_EVENTS = {
  projectCreated: kind("project.created", "ProjectCreated", events.ProjectCreated),
  projectUpdated: kind("project.updated", "ProjectUpdated", events.ProjectUpdated),
  projectArchived: kind("project.archived", "ProjectArchived", events.ProjectArchived),
  projectUnarchived: kind("project.unarchived", "ProjectUnarchived", events.ProjectUnarchived),
  projectMarkedForDeletion: kind(
    "project.marked_for_deletion",
    "ProjectMarkedForDeletion",
    events.ProjectMarkedForDeletion,
  ),
  projectRestored: kind("project.restored", "ProjectRestored", projectLifecycle.ProjectRestored),
  projectRemoved: kind("project.removed", "ProjectRemoved", events.ProjectRemoved),
  /** Internal: the copies of other contexts' data changed (answer caches drop what they kept). */
  copiesChanged: kind("copies.changed", "ProjectCopiesChanged", copies.ProjectCopiesChanged),
  projectStarred: kind("project.starred", "ProjectStarred", events.ProjectStarred),
  projectUnstarred: kind("project.unstarred", "ProjectUnstarred", events.ProjectUnstarred),
  memberAdded: kind("member.added", "ProjectMemberAdded", events.ProjectMemberAdded),
  memberUpdated: kind("member.updated", "ProjectMemberUpdated", events.ProjectMemberUpdated),
  memberRemoved: kind("member.removed", "ProjectMemberRemoved", events.ProjectMemberRemoved),
  projectShared: kind("share.created", "ProjectShared", events.ProjectShared),
  projectUnshared: kind("share.removed", "ProjectUnshared", events.ProjectUnshared),
  customAttributeSet: kind(
    "custom_attribute.set",
    "ProjectCustomAttributeSet",
    events.ProjectCustomAttributeSet,
  ),
  customAttributeRemoved: kind(
    "custom_attribute.removed",
    "ProjectCustomAttributeRemoved",
    events.ProjectCustomAttributeRemoved,
  ),
  projectTransferred: kind(
    "project.transferred",
    "ProjectTransferred",
    groupProjectEvents.ProjectTransferred,
  ),
  projectStatisticsUpdated: kind(
    "project.statistics_updated",
    "ProjectStatisticsUpdated",
    groupProjectEvents.ProjectStatisticsUpdated,
  ),
  projectRepublished: kind("project.republished", "ProjectRepublished", backfillEvents.ProjectRepublished),
  memberRepublished: kind(
    "member.republished",
    "ProjectMemberRepublished",
    backfillEvents.ProjectMemberRepublished,
  ),
  shareRepublished: kind(
    "share.republished",
    "ProjectShareRepublished",
    backfillEvents.ProjectShareRepublished,
  ),
} as const;

/** Every subject the projects context publishes on. */
export const PROJECTS_SUBJECTS = "canopy.projects.>";
