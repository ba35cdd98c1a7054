import type { AsyncService } from "@canopy/kit";
import type { projectCustomAttributes } from "@canopy/protos";
import {
  getCustomAttribute,
  listCustomAttributes,
  removeCustomAttribute,
  setCustomAttribute,
} from "../commands/custom-attributes";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.projects.v1.ProjectCustomAttributesService. */
export const projectCustomAttributesService = (
  deps: Deps,
): AsyncService<typeof projectCustomAttributes.ProjectCustomAttributesServiceService> => ({
  listProjectCustomAttributes: (req) => listCustomAttributes(deps, req),
  getProjectCustomAttribute: (req) => getCustomAttribute(deps, req),
  setProjectCustomAttribute: (req) => setCustomAttribute(deps, req),
  deleteProjectCustomAttribute: (req) => removeCustomAttribute(deps, req),
});
