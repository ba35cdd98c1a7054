/**
 * Shared setup for the groups service's contract tests. Each file starts a real auth service and a
 * real groups service in-process (the kit's harness: the same skeleton main.ts runs) against the
 * run's database and the run's own event stream. Users are made through auth's API and reach groups
 * the way they do in production: auth's events, through the groups service's durable consumer.
 *
 * Files run in parallel against one `groups` schema: names are unique (`unique`) and no test counts
 * rows it did not create itself.
 */
import { createPool, type Pool } from "@canopy/kit";
import { filledClient, startTestService, unique, waitFor, type TestService } from "@canopy/kit/testing";
import { groups, type auth, type common } from "@canopy/protos";
import {
  authRpc as authClientOf,
  newRootToken,
  newSignedInUser,
  startService as startAuthService,
  testEnv as authTestEnv,
  type Service as AuthService,
} from "../../auth/test/support";
import type { GroupsConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { groupsServiceDefinition } from "../src/service";

export { failed, failure } from "@canopy/kit/testing";
export { ANONYMOUS, grpcStatus as status } from "@canopy/kit";
export { unique, waitFor };

// Two services, real PostgreSQL and NATS, every test file at once: 5 s is too tight.
jest.setTimeout(30_000);

/** The requests of the groups API these tests call (the projects service's tests too). */
export const GROUPS_REQUESTS = {
  getGroup: groups.GetGroupRequest,
  createGroup: groups.CreateGroupRequest,
  updateGroup: groups.UpdateGroupRequest,
  listGroups: groups.ListGroupsRequest,
};

export interface TestUser {
  user: auth.User;
  /** What the gateway passes for this user (Authenticate of a fresh token). */
  actor: common.Actor;
}

export interface Harness {
  groupsService: TestService<GroupsConfig, Deps>;
  authService: AuthService;
  rpc: ReturnType<typeof groupsRpc>;
  authRpc: ReturnType<typeof authClientOf>;
  /** root, as the gateway passes them. */
  admin: common.Actor;
  /** A pool on the run's database with search_path `groups`. */
  db: Pool;
  /** A new user (made by root through auth), once the groups service has their copy. */
  newUser(attributes?: auth.UserAttributes): Promise<TestUser>;
  /** A group made by `owner` through the API (a top-level one unless `parentId`). */
  newGroup(
    owner: TestUser | common.Actor,
    attributes?: groups.CreateGroupRequest["attributes"],
    parentId?: number,
  ): Promise<groups.Group>;
  stop(): Promise<void>;
}

const groupsRpc = (service: TestService<GroupsConfig, Deps>) =>
  filledClient(service.client(groups.GroupsServiceService), GROUPS_REQUESTS);

export async function startHarness(env: NodeJS.ProcessEnv = {}): Promise<Harness> {
  const rootToken = newRootToken();
  const authService = await startAuthService(authTestEnv(rootToken, env));
  const groupsService = await startTestService(groupsServiceDefinition, { env });
  const rpc = groupsRpc(groupsService);
  const authRpc = authClientOf(authService);
  const db = createPool({ url: groupsService.config.CANOPY_DATABASE_URL, schema: "groups" });
  const { actor: admin } = await authRpc.authenticate({ token: rootToken });
  if (!admin) throw new Error("the root token did not authenticate");

  const knownHere = async (userId: number) =>
    waitFor(
      `user ${userId} to reach the groups service`,
      async () => (await db.query("SELECT 1 FROM users WHERE id = $1", [userId])).rowCount === 1,
      15_000,
    );
  await knownHere(admin.userId);

  const h: Harness = {
    groupsService,
    authService,
    rpc,
    authRpc,
    admin,
    db,
    newUser: async (attributes = {}) => {
      const { user, actor } = await newSignedInUser({ rpc: authRpc, admin }, attributes);
      await knownHere(user.id);
      return { user, actor };
    },
    newGroup: async (owner, attributes = {}, parentId = 0) => {
      const actor = "actor" in owner ? owner.actor : owner;
      const path = attributes.path ?? unique("g_");
      const detail = await rpc.createGroup({
        actor,
        attributes: { name: path, path, ...attributes },
        parentId,
      });
      return detail.group!;
    },
    stop: async () => {
      await db.end();
      await groupsService.stop();
      await authService.stop();
    },
  };
  return h;
}
