import path from "node:path";
import { ApplicationSettingsView, defineService, openSettingsBucket, serve } from "@canopy/kit";
import {
  groupAvatars,
  groupCustomAttributes,
  groupLifecycle,
  groups,
  groupSharing,
  pushRules,
  groupMembers,
  namespaces,
} from "@canopy/protos";
import { loadGroupsConfig } from "./config";
import type { Deps } from "./deps";
import { projectMembersConsumer, projectSharesConsumer } from "./events/project-access";
import { projectsConsumer } from "./events/projects";
import { ldapMembersConsumer } from "./events/ldap-members";
import { usersConsumer } from "./events/users";
import { avatarsService } from "./rpc/avatars-service";
import { groupsService } from "./rpc/groups-service";
import { sharingService } from "./rpc/sharing-service";
import { customAttributesService } from "./rpc/custom-attributes-service";
import { pushRulesService } from "./rpc/push-rules-service";
import { resealRunnersTokens, runnersTokenKeys } from "./secrets";
import { lifecycleTimers } from "./commands/lifecycle-timers";
import { backfillSnapshots } from "./commands/snapshot-backfills";
import { lifecycleService } from "./rpc/lifecycle-service";
import { membersService } from "./rpc/members-service";
import { namespacesService } from "./rpc/namespaces-service";

/** The groups service's parts; the kit's `runService` starts and stops them in order. */
export const groupsServiceDefinition = defineService({
  name: "groups",
  migrations: path.join(__dirname, "..", "migrations"),
  loadConfig: loadGroupsConfig,
  grpcPort: (config) => config.CANOPY_GROUPS_GRPC_PORT,
  deps: async ({ pool, log, config, nc }): Promise<Deps> => ({
    pool,
    log,
    config,
    settings: await ApplicationSettingsView.open(
      await openSettingsBucket(nc, config.CANOPY_SETTINGS_BUCKET),
      log,
    ),
    runnersTokenKeys: await runnersTokenKeys(pool, config),
  }),
  grpc: (deps) => [
    serve(groups.GroupsServiceService, groupsService(deps)),
    serve(groupSharing.GroupSharingServiceService, sharingService(deps)),
    serve(groupCustomAttributes.GroupCustomAttributesServiceService, customAttributesService(deps)),
    serve(pushRules.GroupPushRulesServiceService, pushRulesService(deps)),
    serve(groupAvatars.GroupAvatarsServiceService, avatarsService(deps)),
    serve(groupLifecycle.GroupLifecycleServiceService, lifecycleService(deps)),
    serve(groupMembers.GroupMembersServiceService, membersService(deps)),
    serve(namespaces.NamespacesServiceService, namespacesService(deps)),
  ],
  consumers: (deps) => [
    usersConsumer(deps),
    projectsConsumer(deps),
    projectMembersConsumer(deps),
    projectSharesConsumer(deps),
    ldapMembersConsumer(deps),
  ],
  timers: (deps) => [
    ...lifecycleTimers(deps),
    // In the background (a large deployment has millions of memberships to publish); once done,
    // each later pass is one SELECT.
    { name: "snapshot backfills", everyMs: 3600_000, afterStart: true, run: () => backfillSnapshots(deps) },
  ],
  background: (deps) => resealRunnersTokens(deps),
});
