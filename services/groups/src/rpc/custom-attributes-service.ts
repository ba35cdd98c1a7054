import type { AsyncService } from "@canopy/kit";
import type { groupCustomAttributes } from "@canopy/protos";
import { removeCustomAttribute, setCustomAttribute } from "../commands/custom-attributes";
import type { Deps } from "../deps";
import { getCustomAttribute, listCustomAttributes } from "../finders/custom-attributes";

/** gRPC handlers of canopy.groups.v1.GroupCustomAttributesService. */
export const customAttributesService = (
  deps: Deps,
): AsyncService<typeof groupCustomAttributes.GroupCustomAttributesServiceService> => ({
  listCustomAttributes: (req) => listCustomAttributes(deps, req),
  getCustomAttribute: (req) => getCustomAttribute(deps, req),
  setCustomAttribute: (req) => setCustomAttribute(deps, req),
  deleteCustomAttribute: (req) => removeCustomAttribute(deps, req),
});
