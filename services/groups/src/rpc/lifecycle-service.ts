import type { AsyncService } from "@canopy/kit";
import type { groupLifecycle } from "@canopy/protos";
import { deleteGroup } from "../commands/lifecycle-delete";
import { restoreGroup } from "../commands/lifecycle-restore";
import { transferGroup } from "../commands/lifecycle-transfer";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.groups.v1.GroupLifecycleService: decode, call, encode. */
export const lifecycleService = (
  deps: Deps,
): AsyncService<typeof groupLifecycle.GroupLifecycleServiceService> => ({
  deleteGroup: (req) => deleteGroup(deps, req),
  restoreGroup: (req) => restoreGroup(deps, req),
  transferGroup: (req) => transferGroup(deps, req),
});
