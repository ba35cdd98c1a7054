import { param } from "../http/params";
import { customAttributeEndpoints } from "./custom-attributes";
import { groupRef } from "./groups";

/** Custom attributes of groups: the groups service's GroupCustomAttributesService. */
export const groupCustomAttributeEndpoints = customAttributeEndpoints(
  { path: "/groups/:id/custom_attributes" },
  { path: "/groups/:id/custom_attributes/:key" },
  param.idOrPath(),
  {
    list: async (deps, actor, id) =>
      (await deps.groupCustomAttributes.listCustomAttributes({ actor, group: groupRef(id) }))
        .customAttributes,
    get: (deps, actor, id, key) =>
      deps.groupCustomAttributes.getCustomAttribute({ actor, group: groupRef(id), key }),
    set: (deps, actor, id, key, value) =>
      deps.groupCustomAttributes.setCustomAttribute({ actor, group: groupRef(id), key, value }),
    remove: (deps, actor, id, key) =>
      deps.groupCustomAttributes.deleteCustomAttribute({ actor, group: groupRef(id), key }),
  },
);
