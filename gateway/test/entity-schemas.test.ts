/**
 * Each response entity schema (src/entities/schemas) against what its builder makes of a
 * representative gRPC message, through the OpenAPI document and ajv as the e2e check uses them
 * (no infrastructure). Messages come twice: with every optional field and higher-tier key there,
 * and bare. Then the schemas' strictness: a key missing, added or of the wrong type fails.
 */
import { settingsView } from "@canopy/projects";
import {
  auth,
  groupMembers,
  groups,
  hooks,
  ldap,
  namespaces,
  oauth,
  projects,
  pushRules,
  settings,
} from "@canopy/protos";
import { applicationSettingsEntity } from "../src/entities/application-settings";
import { application } from "../src/entities/application";
import { groupDetailEntity, groupEntity } from "../src/entities/group";
import { groupHookEntity, hookLogEntity } from "../src/entities/group-hook";
import { groupPushRuleEntity } from "../src/entities/group-push-rule";
import { ldapGroupLinkEntity } from "../src/entities/ldap-group-link";
import { memberEntity } from "../src/entities/member";
import { namespaceEntity } from "../src/entities/namespace";
import { basicProjectEntity, projectEntity, projectWithAccessEntity } from "../src/entities/project";
import { personalAccessToken } from "../src/entities/token";
import { user, userBasic, userDetailsWithAdmin, userPublic, userWithAdmin } from "../src/entities/user";
import { openApiDocument } from "../src/openapi/document";
import { ResponseChecker } from "../src/openapi/response-check";
import { API_ENDPOINTS } from "../src/routes/api";

const checker = new ResponseChecker(openApiDocument(API_ENDPOINTS, "test"));
const URL = "https://canopy.example.com";
const at = new Date("2024-05-06T07:08:09.123Z");
const free = { externalUrl: URL, plan: "free" as const };
const ultimate = { externalUrl: URL, plan: "ultimate" as const };

const fullUser = auth.User.fromPartial({
  id: 7,
  username: "zoë",
  email: "z@example.com",
  name: "Zoë",
  state: auth.UserState.USER_STATE_BLOCKED,
  admin: true,
  twoFactorEnabled: true,
  avatarPath: "/uploads/-/system/user/avatar/7/z.png",
  createdAt: at,
  lastSignInAt: at,
  currentSignInAt: at,
  signInCount: 3,
  currentSignInIp: "203.0.113.9",
  lastSignInIp: "2001:db8::1",
  confirmedAt: at,
  bio: "bio",
  publicEmail: "public@example.com",
  projectsLimit: 10,
  note: "note",
  identities: [{ provider: "ldapmain", externUid: "uid=z,dc=example" }],
});
const bareUser = auth.User.fromPartial({ id: 8, username: "b", email: "b@example.com", name: "B" });

const group = (extra: Partial<groups.Group> = {}) =>
  groups.Group.fromPartial({
    id: 3,
    name: "G",
    path: "g",
    fullName: "G",
    fullPath: "g",
    visibility: "private",
    projectCreationLevel: "developer",
    subgroupCreationLevel: "maintainer",
    sharedRunnersSetting: "enabled",
    createdAt: at,
    ...extra,
  });
const fullGroup = group({
  parentId: 2,
  avatarPath: "/uploads/a.png",
  autoDevopsEnabled: true,
  emailsDisabled: false,
  mentionsDisabled: true,
  markedForDeletionOn: "2024-06-01",
  fileTemplateProjectId: 9,
  customAttributes: [{ key: "team", value: "red" }],
  statistics: groups.GroupStatistics.fromPartial({ storageSize: 1, uploadsSize: 2 }),
  sharedRunnersMinutesLimit: 5,
});

const project = (kind: "user" | "group", extra: Partial<projects.Project> = {}) => {
  const view = settingsView({ access_levels: { issues: 0 }, settings: { ci_config_path: "ci.yml" } });
  return projects.Project.fromPartial({
    id: 11,
    name: "P",
    path: "p",
    namespace: {
      id: 3,
      name: "G",
      path: "g",
      kind,
      fullPath: "g",
      fullName: "G",
      ownerId: 7,
      ownerUsername: "zoë",
      ownerName: "Zoë",
    },
    visibility: "internal",
    createdAt: at,
    updatedAt: at,
    lastActivityAt: at,
    ...view,
    ...extra,
  });
};
const fullProject = project("user", {
  description: "d <b>",
  defaultBranch: "main",
  topics: ["t"],
  sharedWithGroups: [{ groupId: 4, groupName: "H", groupFullPath: "h", groupAccessLevel: 30, expiresAt: "" }],
  markedForDeletionOn: "2024-06-01",
  accessLevel: 40,
  projectAccessLevel: 40,
  groupAccessLevel: 30,
});

const member = (m: Partial<groupMembers.Member>) =>
  groupMembers.Member.fromPartial({
    user: { id: 7, username: "zoë", name: "Zoë", state: "active" },
    accessLevel: 30,
    createdAt: at,
    ...m,
  });

/** [component, what the builder made] pairs; each must validate. */
const built: [string, string, unknown][] = [
  ["UserBasic", "blocked user", userBasic(fullUser, URL)],
  ["User", "full, to a signed-in reader", user(fullUser, URL, { userId: 99, admin: false })],
  ["User", "bare, to anonymous", user(bareUser, URL, { userId: 0, admin: false })],
  [
    "User",
    "private profile, to another user",
    user({ ...bareUser, privateProfile: true }, URL, { userId: 99, admin: false }),
  ],
  ["UserPublic", "full", userPublic(fullUser, URL)],
  ["UserPublic", "bare", userPublic(bareUser, URL)],
  ["UserWithAdmin", "full", userWithAdmin(fullUser, URL, "ultimate")],
  ["UserWithAdmin", "bare, free plan", userWithAdmin(bareUser, URL, "free")],
  ["UserDetailsWithAdmin", "full", userDetailsWithAdmin(fullUser, URL, "ultimate", 50)],
  ["UserDetailsWithAdmin", "bare, free plan", userDetailsWithAdmin(bareUser, URL, "free", 0)],
  [
    "PersonalAccessToken",
    "full",
    personalAccessToken(
      auth.PersonalAccessToken.fromPartial({
        id: 1,
        name: "t",
        scopes: ["api"],
        userId: 7,
        createdAt: at,
        lastUsedAt: at,
        expiresAt: "2025-01-01",
        description: "d",
        active: true,
      }),
    ),
  ],
  ["PersonalAccessToken", "bare", personalAccessToken(auth.PersonalAccessToken.fromPartial({ id: 1 }))],
  [
    "PersonalAccessTokenWithToken",
    "created",
    { ...personalAccessToken(auth.PersonalAccessToken.fromPartial({ id: 1 })), token: "glpat-x" },
  ],
  ["Application", "with secret", application(oauth.Application.fromPartial({ id: 1, scopes: ["api"] }), "s")],
  ["Application", "listed", application(oauth.Application.fromPartial({ id: 1 }))],
  [
    "ApplicationSettings",
    "bare",
    applicationSettingsEntity(settings.ApplicationSettings.fromPartial({ createdAt: at })),
  ],
  ["Group", "full, ultimate", groupEntity(fullGroup, ultimate)],
  ["Group", "bare, free", groupEntity(group(), free)],
  [
    "GroupDetail",
    "full, ultimate, with projects",
    groupDetailEntity(
      groups.GroupDetail.fromPartial({
        group: fullGroup,
        runnersToken: "r",
        sharedWithGroups: [{ groupId: 4, groupName: "H", groupFullPath: "h", groupAccessLevel: 30 }],
      }),
      ultimate,
      { projects: { projects: [projectEntity(fullProject, ultimate)], shared_projects: [] } },
    ),
  ],
  [
    "GroupDetail",
    "top-level, free, without projects",
    groupDetailEntity(groups.GroupDetail.fromPartial({ group: group() }), free, { withProjects: false }),
  ],
  ["BasicProject", "user namespace", basicProjectEntity(fullProject, ultimate)],
  ["Project", "user namespace, ultimate", projectEntity(fullProject, ultimate)],
  ["Project", "group namespace, free", projectEntity(project("group"), free)],
  ["ProjectWithAccess", "with access", projectWithAccessEntity(fullProject, ultimate)],
  ["ProjectWithAccess", "no access", projectWithAccessEntity(project("group"), free)],
  [
    "Member",
    "full",
    memberEntity(
      {
        ...member({
          expiresAt: "2025-01-01",
          createdBy: { id: 1, username: "root", name: "R", state: "", avatarUrl: "" },
        }),
        ldap: true,
      },
      URL,
    ),
  ],
  [
    "Member",
    "bare, with e-mail",
    memberEntity(
      member({ user: { id: 2, username: "e", name: "E", state: "", avatarUrl: "", email: "e@x" } }),
      URL,
    ),
  ],
  [
    "Namespace",
    "group, billing",
    namespaceEntity(
      namespaces.Namespace.fromPartial({
        id: 3,
        kind: "group",
        fullPath: "g",
        membersCountWithDescendants: 2,
        billableMembersCount: 2,
      }),
      ultimate,
    ),
  ],
  [
    "Namespace",
    "user",
    namespaceEntity(namespaces.Namespace.fromPartial({ id: 4, kind: "user", fullPath: "u" }), free),
  ],
  [
    "GroupPushRule",
    "ultimate",
    groupPushRuleEntity(
      pushRules.PushRule.fromPartial({ id: 1, createdAt: at, branchNameRegex: "^x" }),
      "ultimate",
    ),
  ],
  ["GroupPushRule", "premium", groupPushRuleEntity(pushRules.PushRule.fromPartial({ id: 1 }), "premium")],
  [
    "LdapGroupLink",
    "cn, ultimate",
    ldapGroupLinkEntity(
      ldap.GroupLink.fromPartial({ cn: "devs", groupAccess: 30, provider: "ldapmain" }),
      "ultimate",
    ),
  ],
  [
    "GroupHook",
    "filled",
    groupHookEntity(
      hooks.GroupHook.fromPartial({
        id: 3,
        groupId: 4,
        url: "https://example.com/{token}",
        createdAt: at,
        disabledUntil: at,
        flags: { memberEvents: true },
        urlVariableKeys: ["token"],
        customHeaderKeys: ["X-A"],
        pushEventsBranchFilter: "main",
        customWebhookTemplate: "{}",
      }),
    ),
  ],
  ["GroupHook", "bare", groupHookEntity(hooks.GroupHook.fromPartial({ id: 3, flags: {} }))],
  [
    "HookLog",
    "filled",
    hookLogEntity(
      hooks.HookLog.fromPartial({
        id: 9,
        url: "https://example.com",
        trigger: "member_events",
        requestHeadersJson: '{"X-Gitlab-Event":"Member Hook"}',
        requestDataJson: '{"event_name":"user_add_to_group"}',
        responseHeadersJson: "{}",
        responseBody: "ok",
        executionDuration: 0.12,
        responseStatus: "200",
        createdAt: at,
      }),
    ),
  ],
  [
    "LdapGroupLink",
    "filter, free",
    ldapGroupLinkEntity(ldap.GroupLink.fromPartial({ filter: "(a=b)", groupAccess: 30 }), "free"),
  ],
];

test.each(built)("%s (%s) matches what its builder makes", (component, _case, value) => {
  // Through JSON, as a client receives it (undefined keys vanish, dates become text).
  expect(checker.checkEntity(component, JSON.parse(JSON.stringify(value)))).toBeUndefined();
});

test.each([
  "UserWithAdmin",
  "UserDetailsWithAdmin",
  "GroupDetail",
  "Project",
  "Member",
  "PersonalAccessToken",
])("%s refuses a missing key, an unknown key and a wrong type", (component) => {
  const [, , value] = built.find(([c]) => c === component)!;
  const good = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  const { id: _id, ...missing } = good;
  expect(checker.checkEntity(component, missing)?.problems.join()).toMatch(/required property 'id'/);
  expect(checker.checkEntity(component, { ...good, surprise: 1 })?.problems.join()).toMatch(/additional/);
  expect(checker.checkEntity(component, { ...good, id: "7" })?.problems.join()).toMatch(/must be integer/);
});

test("UserDetailsWithAdmin's highest_role is an access level or 0", () => {
  const [, , value] = built.find(([c]) => c === "UserDetailsWithAdmin")!;
  const good = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  expect(checker.checkEntity("UserDetailsWithAdmin", { ...good, highest_role: 0 })).toBeUndefined();
  expect(checker.checkEntity("UserDetailsWithAdmin", { ...good, highest_role: 35 })).toBeDefined();
});
