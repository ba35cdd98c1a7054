import type { AsyncService } from "@canopy/kit";
import type { userCustomAttributes } from "@canopy/protos";
import * as commands from "../commands/custom-attributes";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.auth.v1.UserCustomAttributesService. */
export const userCustomAttributesService = (
  deps: Deps,
): AsyncService<typeof userCustomAttributes.UserCustomAttributesServiceService> => ({
  listUserCustomAttributes: (req) => commands.listUserCustomAttributes(deps, req),
  getUserCustomAttribute: (req) => commands.getUserCustomAttribute(deps, req),
  setUserCustomAttribute: (req) => commands.setUserCustomAttribute(deps, req),
  deleteUserCustomAttribute: (req) => commands.deleteUserCustomAttribute(deps, req),
});
