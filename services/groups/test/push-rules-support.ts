/**
 * Helpers of the push-rule contract tests: a client of GroupPushRulesService, memberships made
 * straight in the table (the members API is another area's), a second groups service on another
 * plan over the same database, and the PushRuleChanged events a group's changes recorded.
 */
import { startTestService, filledClient, type TestService } from "@canopy/kit/testing";
import type { Plan } from "@canopy/kit";
import { events, groups, GROUPS_EVENTS, pushRules } from "@canopy/protos";
import type { GroupsConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { groupsServiceDefinition } from "../src/service";
import type { Harness } from "./support";
import { insertMembership } from "./memberships";

const PUSH_RULE_REQUESTS = {
  authorizePushRules: pushRules.AuthorizePushRulesRequest,
  getPushRule: pushRules.GetPushRuleRequest,
  createPushRule: pushRules.WritePushRuleRequest,
  updatePushRule: pushRules.WritePushRuleRequest,
  deletePushRule: pushRules.DeletePushRuleRequest,
};

export const pushRulesRpc = (service: TestService<GroupsConfig, Deps>) =>
  filledClient(service.client(pushRules.GroupPushRulesServiceService), PUSH_RULE_REQUESTS);
export type PushRulesRpc = ReturnType<typeof pushRulesRpc>;

/** A direct membership, as the members API would make it. */
export const addMember = (h: Harness, groupId: number, userId: number, accessLevel: number) =>
  insertMembership(h.db, { groupId, userId, accessLevel });

/** Another groups service on `plan`, over the harness's database (users are already copied there). */
export async function startPlanService(plan: Plan) {
  const service = await startTestService(groupsServiceDefinition, { env: { CANOPY_PLAN: plan } });
  return {
    rpc: pushRulesRpc(service),
    createGroup: (request: Partial<groups.CreateGroupRequest>) =>
      service.client(groups.GroupsServiceService).createGroup(groups.CreateGroupRequest.fromPartial(request)),
    stop: () => service.stop(),
  };
}

/** `present` of each PushRuleChanged event recorded for the group, oldest first. */
export async function pushRuleEvents(h: Harness, groupId: number): Promise<boolean[]> {
  const { rows } = await h.db.query<{ envelope: Buffer }>(
    "SELECT envelope FROM outbox WHERE subject = $1 ORDER BY seq",
    [GROUPS_EVENTS.pushRuleChanged.subject],
  );
  return rows
    .map((r) => GROUPS_EVENTS.pushRuleChanged.codec.decode(events.Event.decode(r.envelope).payload))
    .filter((e) => e.groupId === groupId)
    .map((e) => e.present);
}
