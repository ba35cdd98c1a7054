/**
 * Shared setup for the projects service's contract tests. Each file starts real auth, groups and
 * projects services in-process (the kit's harness: the same skeleton main.ts runs) against the run's
 * database and event stream. Users and groups are made through their own services' APIs and reach
 * the projects service the way they do in production: through its durable consumers.
 *
 * Files run in parallel against one `projects` schema: names are unique (`unique`) and no test
 * counts rows it did not create itself.
 */
import { randomBytes } from "node:crypto";
import { createPool, type Pool } from "@canopy/kit";
import { filledClient, startTestService, unique, waitFor, type TestService } from "@canopy/kit/testing";
import { authServiceDefinition } from "@canopy/auth";
import { groupsServiceDefinition } from "@canopy/groups";
import {
  auth,
  AUTH_IDEMPOTENT_METHODS,
  groupLifecycle,
  groupMembers,
  groups,
  groupSharing,
  projects,
  type common,
} from "@canopy/protos";
import { AUTH_REQUESTS } from "../../auth/test/support";
import type { ProjectsConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { projectsServiceDefinition } from "../src/service";

export { failed, failure } from "@canopy/kit/testing";
export { ANONYMOUS, grpcStatus as status } from "@canopy/kit";
export { unique, waitFor };

// Three services, real PostgreSQL and NATS, every test file at once.
jest.setTimeout(60_000);

export interface TestUser {
  user: auth.User;
  /** What the gateway passes for this user (Authenticate of a fresh token). */
  actor: common.Actor;
}


const PROJECTS_REQUESTS = {
  getProject: projects.GetProjectRequest,
  createProject: projects.CreateProjectRequest,
  updateProject: projects.UpdateProjectRequest,
  deleteProject: projects.DeleteProjectRequest,
  listProjects: projects.ListProjectsRequest,
  starProject: projects.StarProjectRequest,
  unstarProject: projects.StarProjectRequest,
  archiveProject: projects.ArchiveProjectRequest,
  unarchiveProject: projects.ArchiveProjectRequest,
};
const GROUPS_REQUESTS = {
  getGroup: groups.GetGroupRequest,
  createGroup: groups.CreateGroupRequest,
  updateGroup: groups.UpdateGroupRequest,
  listGroups: groups.ListGroupsRequest,
};
const MEMBERS_REQUESTS = {
  listMembers: groupMembers.ListMembersRequest,
  getMember: groupMembers.GetMemberRequest,
  addMember: groupMembers.AddMemberRequest,
  addMembers: groupMembers.AddMembersRequest,
  updateMember: groupMembers.UpdateMemberRequest,
  removeMember: groupMembers.RemoveMemberRequest,
};
const SHARING_REQUESTS = {
  shareGroup: groupSharing.ShareGroupRequest,
  unshareGroup: groupSharing.UnshareGroupRequest,
};
const LIFECYCLE_REQUESTS = {
  deleteGroup: groupLifecycle.DeleteGroupRequest,
  restoreGroup: groupLifecycle.RestoreGroupRequest,
  transferGroup: groupLifecycle.TransferGroupRequest,
};

export async function startHarness(env: NodeJS.ProcessEnv = {}) {
  const rootToken = `glpat-${randomBytes(24).toString("base64url")}`;
  const authService = await startTestService(authServiceDefinition, {
    env: { CANOPY_ROOT_PASSWORD: "root-password-for-tests", CANOPY_ROOT_TOKEN: rootToken, ...env },
  });
  const groupsService = await startTestService(groupsServiceDefinition, {
    env: { CANOPY_GROUPS_REMOVAL_POLL_MS: "100", ...env },
  });
  const projectsService: TestService<ProjectsConfig, Deps> = await startTestService(
    projectsServiceDefinition,
    // Copies arrive in milliseconds here; a missing namespace need not be awaited long.
    { env: { CANOPY_PROJECTS_COPY_WAIT_MS: "1000", ...env } },
  );
  const authRpc = filledClient(
    authService.client(auth.AuthServiceService, { idempotent: AUTH_IDEMPOTENT_METHODS }),
    AUTH_REQUESTS,
  );
  const rpc = filledClient(projectsService.client(projects.ProjectsServiceService), PROJECTS_REQUESTS);
  const groupsRpc = filledClient(groupsService.client(groups.GroupsServiceService), GROUPS_REQUESTS);
  const membersRpc = filledClient(
    groupsService.client(groupMembers.GroupMembersServiceService),
    MEMBERS_REQUESTS,
  );
  const sharingRpc = filledClient(
    groupsService.client(groupSharing.GroupSharingServiceService),
    SHARING_REQUESTS,
  );
  const lifecycleRpc = filledClient(
    groupsService.client(groupLifecycle.GroupLifecycleServiceService),
    LIFECYCLE_REQUESTS,
  );
  const db: Pool = createPool({ url: projectsService.config.CANOPY_DATABASE_URL, schema: "projects" });
  const { actor: admin } = await authRpc.authenticate({ token: rootToken });
  if (!admin) throw new Error("the root token did not authenticate");

  /** Waits until the projects service's copies satisfy `sql` (one row = yes). */
  const copied = (what: string, sql: string, values: unknown[]) =>
    waitFor(what, async () => (await db.query(sql, values)).rowCount === 1, 15_000);

  const h = {
    authService,
    groupsService,
    projectsService,
    rpc,
    groupsRpc,
    membersRpc,
    sharingRpc,
    lifecycleRpc,
    authRpc,
    admin,
    db,
    copied,
    /** A new user (made by root through auth), once the projects service has them and their namespace. */
    newUser: async (attributes: Partial<auth.UserAttributes> = {}): Promise<TestUser> => {
      const username = unique("u_");
      const user = await authRpc.createUser({
        actor: admin,
        attributes: {
          username,
          email: `${username}@example.com`,
          name: `User ${username}`,
          password: "s3cret-passw0rd",
          ...attributes,
        },
      });
      const token = await authRpc.createPersonalAccessToken({
        actor: admin,
        userId: user.id,
        name: "t",
        scopes: ["api"],
      });
      const { actor } = await authRpc.authenticate({ token: token.secret });
      await copied(
        `user ${user.id} and their namespace to reach projects`,
        "SELECT 1 FROM users u JOIN namespaces n ON n.owner_id = u.id WHERE u.id = $1",
        [user.id],
      );
      return { user, actor: actor! };
    },
    /** A group made by `owner` through the groups service, once its copy reached projects. */
    newGroup: async (
      owner: TestUser | common.Actor,
      attributes: groups.CreateGroupRequest["attributes"] = {},
      parentId = 0,
    ): Promise<groups.Group> => {
      const actor = "actor" in owner ? owner.actor : owner;
      const path = attributes.path ?? unique("g_");
      const detail = await groupsRpc.createGroup({
        actor,
        attributes: { name: path, path, ...attributes },
        parentId,
      });
      const group = detail.group!;
      await copied(`group ${group.id} to reach projects`, "SELECT 1 FROM namespaces WHERE id = $1", [
        group.id,
      ]);
      return group;
    },
    /** Adds a member through the groups service and waits for the copy. */
    addMember: async (groupId: number, user: TestUser, accessLevel: number, expiresAt = "") => {
      await membersRpc.addMember({
        actor: admin,
        group: { id: groupId },
        userId: user.user.id,
        accessLevel,
        expiresAt,
      });
      await copied(
        `membership of ${user.user.id} in ${groupId}`,
        "SELECT 1 FROM group_members WHERE namespace_id = $1 AND user_id = $2 AND access_level = $3",
        [groupId, user.user.id, accessLevel],
      );
    },
    /** Shares `groupId` with `withGroupId` through the groups service and waits for the copy. */
    shareGroup: async (groupId: number, withGroupId: number, groupAccess: number) => {
      await sharingRpc.shareGroup({
        actor: admin,
        group: { id: groupId },
        sharedWithGroupId: withGroupId,
        groupAccess,
      });
      await copied(
        `share of ${groupId} with ${withGroupId}`,
        "SELECT 1 FROM group_group_links WHERE shared_group_id = $1 AND shared_with_group_id = $2",
        [groupId, withGroupId],
      );
    },
    /** A project made by `creator` in `namespaceId` (0: their personal namespace). */
    newProject: async (
      creator: TestUser | common.Actor,
      namespaceId = 0,
      attributes: Partial<projects.ProjectAttributes> = {},
    ) => {
      const actor = "actor" in creator ? creator.actor : creator;
      const path = attributes.path ?? unique("p_");
      return rpc.createProject({ actor, namespaceId, attributes: { name: path, path, ...attributes } });
    },
    stop: async () => {
      await db.end();
      await projectsService.stop();
      await groupsService.stop();
      await authService.stop();
    },
  };
  return h;
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;
