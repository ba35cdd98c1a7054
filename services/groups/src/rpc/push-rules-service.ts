import type { AsyncService } from "@canopy/kit";
import type { pushRules } from "@canopy/protos";
import { createPushRule, deletePushRule, updatePushRule } from "../commands/push-rules";
import type { Deps } from "../deps";
import { authorizePushRules, getPushRule } from "../finders/push-rules";

/** gRPC handlers of canopy.groups.v1.GroupPushRulesService: decode, call, encode. */
export const pushRulesService = (
  deps: Deps,
): AsyncService<typeof pushRules.GroupPushRulesServiceService> => ({
  authorizePushRules: async (req) => {
    await authorizePushRules(deps, req);
    return {};
  },
  getPushRule: (req) => getPushRule(deps, req),
  createPushRule: (req) => createPushRule(deps, req),
  updatePushRule: (req) => updatePushRule(deps, req),
  deletePushRule: (req) => deletePushRule(deps, req),
});
