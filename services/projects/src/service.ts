import path from "node:path";
import { ApplicationSettingsView, defineService, openSettingsBucket, serve } from "@canopy/kit";
import {
  groupProjects,
  projectActivity,
  projectCustomAttributes,
  projectLifecycle,
  projectMembers,
  projects,
  projectSharing,
} from "@canopy/protos";
import { loadProjectsConfig } from "./config";
import type { Deps } from "./deps";
import { deletionTimers } from "./commands/delete-project";
import { snapshotBackfillTimer } from "./commands/snapshot-backfill";
import { expiredRemovalTimers } from "./commands/member-removals";
import { groupsConsumer } from "./events/groups";
import { usersConsumer } from "./events/users";
import { projectCustomAttributesService } from "./rpc/custom-attributes-service";
import { projectEventsService } from "./rpc/events-service";
import { projectLifecycleService } from "./rpc/lifecycle-service";
import { projectMembersService } from "./rpc/members-service";
import { groupProjectsService } from "./rpc/group-projects-service";
import { projectsService } from "./rpc/projects-service";
import { projectSharingService } from "./rpc/sharing-service";

/** The projects service's parts; the kit's `runService` starts and stops them in order. */
export const projectsServiceDefinition = defineService({
  name: "projects",
  migrations: path.join(__dirname, "..", "migrations"),
  loadConfig: loadProjectsConfig,
  grpcPort: (config) => config.CANOPY_PROJECTS_GRPC_PORT,
  deps: async ({ pool, log, config, nc }): Promise<Deps> => ({
    pool,
    log,
    config,
    settings: await ApplicationSettingsView.open(
      await openSettingsBucket(nc, config.CANOPY_SETTINGS_BUCKET),
      log,
    ),
  }),
  grpc: (deps) => [
    serve(projects.ProjectsServiceService, projectsService(deps)),
    serve(projectMembers.ProjectMembersServiceService, projectMembersService(deps)),
    serve(projectSharing.ProjectSharingServiceService, projectSharingService(deps)),
    serve(
      projectCustomAttributes.ProjectCustomAttributesServiceService,
      projectCustomAttributesService(deps),
    ),
    serve(groupProjects.GroupProjectsServiceService, groupProjectsService(deps)),
    serve(projectLifecycle.ProjectLifecycleServiceService, projectLifecycleService(deps)),
    serve(projectActivity.ProjectEventsServiceService, projectEventsService(deps)),
  ],
  consumers: (deps) => [usersConsumer(deps), groupsConsumer(deps)],
  timers: (deps) => [...deletionTimers(deps), ...expiredRemovalTimers(deps), snapshotBackfillTimer(deps)],
});
