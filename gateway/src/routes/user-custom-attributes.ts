import { param } from "../http/params";
import { READ_USER } from "../http/scopes";
import { customAttributeEndpoints } from "./custom-attributes";

/** Custom attributes of users: the auth service's UserCustomAttributesService. */
export const userCustomAttributeEndpoints = customAttributeEndpoints(
  { path: "/users/:id/custom_attributes" },
  { path: "/users/:id/custom_attributes/:key" },
  param.id(),
  {
    list: async (deps, actor, userId) =>
      (await deps.userCustomAttributes.listUserCustomAttributes({ actor, userId })).customAttributes,
    get: (deps, actor, userId, key) =>
      deps.userCustomAttributes.getUserCustomAttribute({ actor, userId, key }),
    set: (deps, actor, userId, key, value) =>
      deps.userCustomAttributes.setUserCustomAttribute({ actor, userId, key, value }),
    remove: (deps, actor, userId, key) =>
      deps.userCustomAttributes.deleteUserCustomAttribute({ actor, userId, key }),
  },
  READ_USER,
);
