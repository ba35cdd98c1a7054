import { param } from "../http/params";
import { customAttributeEndpoints } from "./custom-attributes";
import { projectRef } from "./projects";

/** Custom attributes of projects: the projects service's ProjectCustomAttributesService. */
export const projectCustomAttributeEndpoints = customAttributeEndpoints(
  { path: "/projects/:id/custom_attributes" },
  { path: "/projects/:id/custom_attributes/:key" },
  param.idOrPath(),
  {
    list: async (deps, actor, id) =>
      (await deps.projectCustomAttributes.listProjectCustomAttributes({ actor, project: projectRef(id) }))
        .customAttributes,
    get: (deps, actor, id, key) =>
      deps.projectCustomAttributes.getProjectCustomAttribute({ actor, project: projectRef(id), key }),
    set: (deps, actor, id, key, value) =>
      deps.projectCustomAttributes.setProjectCustomAttribute({ actor, project: projectRef(id), key, value }),
    remove: (deps, actor, id, key) =>
      deps.projectCustomAttributes.deleteProjectCustomAttribute({ actor, project: projectRef(id), key }),
  },
);
