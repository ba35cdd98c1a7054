import type { Context } from "koa";
import type { PromiseClient, RedisClient } from "@canopy/kit";
import type {
  auth,
  groupCustomAttributes,
  groups,
  groupSharing,
  hooks,
  oauth,
  pushRules,
  settings,
  groupAvatars,
  groupLifecycle,
  groupMembers,
  groupProjects,
  namespaces,
  projects,
  projectMembers,
  projectSharing,
  projectCustomAttributes,
  projectActivity,
  projectLifecycle,
  ldap,
  userCustomAttributes,
  userAvatars,
  userState,
  impersonationTokens,
  userStatus,
  userActivity,
} from "@canopy/protos";
import type { AuthenticationCache } from "../authn/cache";
import type { AnswerCache } from "../http/answer-cache";
import type { RecentWrites } from "../http/recent-writes";
import type { UserActivityRecorder } from "../http/user-activity";
import type { GatewayConfig } from "../config";
import { normalizeKeys } from "../http/params";
import type { RateLimits } from "../middleware/rate-limit";

/** What route handlers need. */
export interface RouteDeps {
  config: GatewayConfig;
  auth: PromiseClient<typeof auth.AuthServiceService>;
  oauth: PromiseClient<typeof oauth.OAuthServiceService>;
  userCustomAttributes: PromiseClient<typeof userCustomAttributes.UserCustomAttributesServiceService>;
  userAvatars: PromiseClient<typeof userAvatars.UserAvatarsServiceService>;
  userState: PromiseClient<typeof userState.UserStateServiceService>;
  impersonationTokens: PromiseClient<typeof impersonationTokens.ImpersonationTokensServiceService>;
  userStatus: PromiseClient<typeof userStatus.UserStatusServiceService>;
  userActivity: PromiseClient<typeof userActivity.UserActivityServiceService>;
  settings: PromiseClient<typeof settings.SettingsServiceService>;
  groups: PromiseClient<typeof groups.GroupsServiceService>;
  groupSharing: PromiseClient<typeof groupSharing.GroupSharingServiceService>;
  groupCustomAttributes: PromiseClient<typeof groupCustomAttributes.GroupCustomAttributesServiceService>;
  pushRules: PromiseClient<typeof pushRules.GroupPushRulesServiceService>;
  groupAvatars: PromiseClient<typeof groupAvatars.GroupAvatarsServiceService>;
  groupLifecycle: PromiseClient<typeof groupLifecycle.GroupLifecycleServiceService>;
  groupMembers: PromiseClient<typeof groupMembers.GroupMembersServiceService>;
  namespaces: PromiseClient<typeof namespaces.NamespacesServiceService>;
  projects: PromiseClient<typeof projects.ProjectsServiceService>;
  projectMembers: PromiseClient<typeof projectMembers.ProjectMembersServiceService>;
  projectSharing: PromiseClient<typeof projectSharing.ProjectSharingServiceService>;
  projectCustomAttributes: PromiseClient<
    typeof projectCustomAttributes.ProjectCustomAttributesServiceService
  >;
  projectEvents: PromiseClient<typeof projectActivity.ProjectEventsServiceService>;
  groupProjects: PromiseClient<typeof groupProjects.GroupProjectsServiceService>;
  projectLifecycle: PromiseClient<typeof projectLifecycle.ProjectLifecycleServiceService>;
  ldap: PromiseClient<typeof ldap.LdapServiceService>;
  groupHooks: PromiseClient<typeof hooks.GroupHooksServiceService>;
  cache: AuthenticationCache;
  /** Rendered group reads, per caller (http/answer-cache.ts). */
  answers: AnswerCache;
  /** Where callers' recent writes reached the event stream, to read them back at once (http/recent-writes.ts). */
  writes: RecentWrites;
  /** Records each signed-in user's activity day, at most one write a day (http/user-activity.ts). */
  activity: UserActivityRecorder;
  redis: RedisClient;
  limits: RateLimits;
}

/** Query, body and route params merged as Grape merges them (route params win). */
export const rawParams = (ctx: Context): Record<string, unknown> =>
  normalizeKeys({
    ...(ctx.query as Record<string, unknown>),
    ...((ctx.request.body as Record<string, unknown> | undefined) ?? {}),
    ...((ctx as unknown as { params?: Record<string, string> }).params ?? {}),
  });
