/**
 * Shared setup for the projects service's contract tests. Each file starts real auth, groups and
 * projects services in-process (the kit's harness: the same skeleton main.ts runs) against the run's
 * database and event stream. Users and groups are made through their own services' APIs and reach
 * the projects service the way they do in production: through its durable consumers.
 *
 * Files run in parallel against one `projects` schema: names are unique (`unique`) and no test
 * counts rows it did not create itself.
 */
import { createPool, type Pool } from "@canopy/kit";
import { filledClient, startTestService, unique, waitFor, type TestService } from "@canopy/kit/testing";
import { groupsServiceDefinition } from "@canopy/groups";
import {
  groupLifecycle,
  groupMembers,
  groups,
  groupSharing,
  projects,
  type auth,
  type common,
} from "@canopy/protos";
import {
  authRpc as authClientOf,
  newRootToken,
  newSignedInUser,
  startService as startAuthService,
  testEnv as authTestEnv,
} from "../../auth/test/support";
import { LIFECYCLE_REQUESTS } from "../../groups/test/lifecycle-support";
import { MEMBER_REQUESTS } from "../../groups/test/members-support";
import { SHARING_REQUESTS } from "../../groups/test/sharing-support";
import { GROUPS_REQUESTS, type TestUser } from "../../groups/test/support";
import type { ProjectsConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { projectsServiceDefinition } from "../src/service";

export { failed, failure } from "@canopy/kit/testing";
export { ANONYMOUS, grpcStatus as status } from "@canopy/kit";
export { unique, waitFor };
export type { TestUser };

// Three services, real PostgreSQL and NATS, every test file at once.
jest.setTimeout(60_000);

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
export async function startHarness(env: NodeJS.ProcessEnv = {}) {
  const rootToken = newRootToken();
  const authService = await startAuthService(authTestEnv(rootToken, env));
  const groupsService = await startTestService(groupsServiceDefinition, {
    env: { CANOPY_GROUPS_REMOVAL_POLL_MS: "100", ...env },
  });
  const projectsService: TestService<ProjectsConfig, Deps> = await startTestService(
    projectsServiceDefinition,
    // Copies arrive in milliseconds here; a missing namespace need not be awaited long.
    { env: { CANOPY_PROJECTS_COPY_WAIT_MS: "1000", ...env } },
  );
  const authRpc = authClientOf(authService);
  const rpc = filledClient(projectsService.client(projects.ProjectsServiceService), PROJECTS_REQUESTS);
  const groupsRpc = filledClient(groupsService.client(groups.GroupsServiceService), GROUPS_REQUESTS);
  const membersRpc = filledClient(
    groupsService.client(groupMembers.GroupMembersServiceService),
    MEMBER_REQUESTS,
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
      const { user, actor } = await newSignedInUser({ rpc: authRpc, admin }, attributes);
      await copied(
        `user ${user.id} and their namespace to reach projects`,
        "SELECT 1 FROM users u JOIN namespaces n ON n.owner_id = u.id WHERE u.id = $1",
        [user.id],
      );
      return { user, actor };
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
