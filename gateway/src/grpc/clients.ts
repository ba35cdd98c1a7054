import { createClient, loadCallSigner, loadGrpcTls, type PromiseClient } from "@canopy/kit";
import {
  auth,
  AUTH_IDEMPOTENT_METHODS,
  groups,
  groupAvatars,
  GROUP_AVATARS_IDEMPOTENT_METHODS,
  GROUPS_IDEMPOTENT_METHODS,
  groupSharing,
  GROUP_SHARING_IDEMPOTENT_METHODS,
  hooks,
  GROUP_HOOKS_IDEMPOTENT_METHODS,
  groupCustomAttributes,
  GROUP_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
  GROUP_PUSH_RULES_IDEMPOTENT_METHODS,
  groupLifecycle,
  GROUP_LIFECYCLE_IDEMPOTENT_METHODS,
  groupMembers,
  GROUP_MEMBERS_IDEMPOTENT_METHODS,
  groupProjects,
  GROUP_PROJECTS_IDEMPOTENT_METHODS,
  ldap,
  LDAP_IDEMPOTENT_METHODS,
  namespaces,
  NAMESPACES_IDEMPOTENT_METHODS,
  oauth,
  userCustomAttributes,
  userAvatars,
  userState,
  USER_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
  USER_AVATARS_IDEMPOTENT_METHODS,
  impersonationTokens,
  IMPERSONATION_TOKENS_IDEMPOTENT_METHODS,
  userStatus,
  USER_STATUS_IDEMPOTENT_METHODS,
  userActivity,
  USER_ACTIVITY_IDEMPOTENT_METHODS,
  projects,
  PROJECTS_IDEMPOTENT_METHODS,
  projectMembers,
  PROJECT_MEMBERS_IDEMPOTENT_METHODS,
  projectSharing,
  PROJECT_SHARING_IDEMPOTENT_METHODS,
  projectCustomAttributes,
  projectLifecycle,
  PROJECT_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
  projectActivity,
  PROJECT_EVENTS_IDEMPOTENT_METHODS,
  pushRules,
  settings,
  SETTINGS_IDEMPOTENT_METHODS,
} from "@canopy/protos";
import type { ServiceDefinition } from "@grpc/grpc-js";
import type { GatewayConfig } from "../config";
import { tagDependency } from "./dependency";

/** One row per gRPC client of the gateway: adding a service is one more row here. */
export interface ClientSpec<S extends ServiceDefinition> {
  /** The service's name as a failure names it: "503 ... - auth service is not answering". */
  service: string;
  /** The config key holding the service's host:port. */
  address: keyof GatewayConfig & `CANOPY_${string}_ADDRESS`;
  definition: S;
  /** Methods safe to retry after UNAVAILABLE (reads, and writes whose repetition changes nothing). */
  idempotent: (keyof S)[];
}

const spec = <S extends ServiceDefinition>(s: ClientSpec<S>) => s;

export const CLIENTS = {
  auth: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: auth.AuthServiceService,
    idempotent: AUTH_IDEMPOTENT_METHODS,
  }),
  userCustomAttributes: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: userCustomAttributes.UserCustomAttributesServiceService,
    idempotent: USER_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
  }),
  userAvatars: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: userAvatars.UserAvatarsServiceService,
    idempotent: USER_AVATARS_IDEMPOTENT_METHODS,
  }),
  // State actions are writes whose answer depends on the state before: none is retried.
  userState: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: userState.UserStateServiceService,
    idempotent: [],
  }),
  impersonationTokens: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: impersonationTokens.ImpersonationTokensServiceService,
    idempotent: IMPERSONATION_TOKENS_IDEMPOTENT_METHODS,
  }),
  userStatus: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: userStatus.UserStatusServiceService,
    idempotent: USER_STATUS_IDEMPOTENT_METHODS,
  }),
  userActivity: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: userActivity.UserActivityServiceService,
    idempotent: USER_ACTIVITY_IDEMPOTENT_METHODS,
  }),
  // Token, revoke and sign-in are not idempotent; only lookups are retried.
  oauth: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: oauth.OAuthServiceService,
    idempotent: ["listApplications", "preAuthorize", "tokenInfo", "introspect", "userInfo", "getJwks"],
  }),
  settings: spec({
    service: "auth",
    address: "CANOPY_AUTH_ADDRESS",
    definition: settings.SettingsServiceService,
    idempotent: SETTINGS_IDEMPOTENT_METHODS,
  }),
  groups: spec({
    service: "groups",
    address: "CANOPY_GROUPS_ADDRESS",
    definition: groups.GroupsServiceService,
    idempotent: GROUPS_IDEMPOTENT_METHODS,
  }),
  groupSharing: spec({
    service: "groups",
    address: "CANOPY_GROUPS_ADDRESS",
    definition: groupSharing.GroupSharingServiceService,
    idempotent: GROUP_SHARING_IDEMPOTENT_METHODS,
  }),
  groupCustomAttributes: spec({
    service: "groups",
    address: "CANOPY_GROUPS_ADDRESS",
    definition: groupCustomAttributes.GroupCustomAttributesServiceService,
    idempotent: GROUP_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
  }),
  pushRules: spec({
    service: "groups",
    address: "CANOPY_GROUPS_ADDRESS",
    definition: pushRules.GroupPushRulesServiceService,
    idempotent: GROUP_PUSH_RULES_IDEMPOTENT_METHODS,
  }),
  groupAvatars: spec({
    service: "groups",
    address: "CANOPY_GROUPS_ADDRESS",
    definition: groupAvatars.GroupAvatarsServiceService,
    idempotent: GROUP_AVATARS_IDEMPOTENT_METHODS,
  }),
  groupLifecycle: spec({
    service: "groups",
    address: "CANOPY_GROUPS_ADDRESS",
    definition: groupLifecycle.GroupLifecycleServiceService,
    idempotent: GROUP_LIFECYCLE_IDEMPOTENT_METHODS,
  }),
  groupMembers: spec({
    service: "groups",
    address: "CANOPY_GROUPS_ADDRESS",
    definition: groupMembers.GroupMembersServiceService,
    idempotent: GROUP_MEMBERS_IDEMPOTENT_METHODS,
  }),
  namespaces: spec({
    service: "groups",
    address: "CANOPY_GROUPS_ADDRESS",
    definition: namespaces.NamespacesServiceService,
    idempotent: NAMESPACES_IDEMPOTENT_METHODS,
  }),
  projects: spec({
    service: "projects",
    address: "CANOPY_PROJECTS_ADDRESS",
    definition: projects.ProjectsServiceService,
    idempotent: PROJECTS_IDEMPOTENT_METHODS,
  }),
  projectMembers: spec({
    service: "projects",
    address: "CANOPY_PROJECTS_ADDRESS",
    definition: projectMembers.ProjectMembersServiceService,
    idempotent: PROJECT_MEMBERS_IDEMPOTENT_METHODS,
  }),
  projectSharing: spec({
    service: "projects",
    address: "CANOPY_PROJECTS_ADDRESS",
    definition: projectSharing.ProjectSharingServiceService,
    idempotent: PROJECT_SHARING_IDEMPOTENT_METHODS,
  }),
  projectCustomAttributes: spec({
    service: "projects",
    address: "CANOPY_PROJECTS_ADDRESS",
    definition: projectCustomAttributes.ProjectCustomAttributesServiceService,
    idempotent: PROJECT_CUSTOM_ATTRIBUTES_IDEMPOTENT_METHODS,
  }),
  projectEvents: spec({
    service: "projects",
    address: "CANOPY_PROJECTS_ADDRESS",
    definition: projectActivity.ProjectEventsServiceService,
    idempotent: PROJECT_EVENTS_IDEMPOTENT_METHODS,
  }),
  groupProjects: spec({
    service: "projects",
    address: "CANOPY_PROJECTS_ADDRESS",
    definition: groupProjects.GroupProjectsServiceService,
    idempotent: GROUP_PROJECTS_IDEMPOTENT_METHODS,
  }),
  projectLifecycle: spec({
    service: "projects",
    address: "CANOPY_PROJECTS_ADDRESS",
    definition: projectLifecycle.ProjectLifecycleServiceService,
    // A restore is not repeated: the second one is a 400.
    idempotent: [],
  }),
  ldap: spec({
    service: "ldap",
    address: "CANOPY_LDAP_ADDRESS",
    definition: ldap.LdapServiceService,
    idempotent: LDAP_IDEMPOTENT_METHODS,
  }),
  groupHooks: spec({
    service: "hooks",
    address: "CANOPY_HOOKS_ADDRESS",
    definition: hooks.GroupHooksServiceService,
    idempotent: GROUP_HOOKS_IDEMPOTENT_METHODS,
  }),
};

type Specs = typeof CLIENTS;
export type Clients = { [K in keyof Specs]: PromiseClient<Specs[K]["definition"]> };

/**
 * A client whose rejections carry the name of the service that failed. Every call is signed with
 * the gateway's key (services refuse unsigned calls) and, when configured, goes over mutual TLS.
 */
export function connectClient<S extends ServiceDefinition>(spec: ClientSpec<S>, config: GatewayConfig) {
  const client = createClient(spec.definition, {
    address: String(config[spec.address]),
    idempotent: spec.idempotent,
    signer: loadCallSigner(config),
    tls: loadGrpcTls(config),
  });
  const tagged: Record<string, unknown> = { ...client };
  for (const method of Object.keys(spec.definition)) {
    const call = client[method as keyof S] as unknown as (...args: unknown[]) => Promise<unknown>;
    tagged[method] = (...args: unknown[]) =>
      call(...args).catch((err: unknown) => {
        throw tagDependency(err, spec.service);
      });
  }
  return tagged as PromiseClient<S>;
}

/** Every client in the table, connected; `close` closes them all. */
export function createClients(config: GatewayConfig): Clients & { close(): void } {
  const clients = Object.fromEntries(
    Object.entries(CLIENTS).map(([name, s]) => [
      name,
      connectClient(s as unknown as ClientSpec<ServiceDefinition>, config),
    ]),
  ) as unknown as Clients;
  return {
    ...clients,
    close: () => Object.values(clients).forEach((c) => c.close()),
  };
}
