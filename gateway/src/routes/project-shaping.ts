import type { Context } from "koa";
import type { projects } from "@canopy/protos";
import { basicProjectEntity, projectEntity, type ProjectShaping } from "../entities/project";
import { sendJson } from "../http/json";
import type { RouteDeps } from "./context";

/** What shaping a project needs from this deployment: where links point and which tier is on. */
export const projectShaping = (deps: RouteDeps): ProjectShaping => ({
  externalUrl: deps.config.CANOPY_EXTERNAL_URL,
  plan: deps.config.CANOPY_PLAN,
});

/** `custom_attributes` where the service gave them (administrators who asked), by key. */
export const withAttributes = <T extends object>(entity: T, p: projects.Project) =>
  p.customAttributes
    ? {
        ...entity,
        custom_attributes: Object.entries(p.customAttributes.values).map(([key, value]) => ({ key, value })),
      }
    : entity;

/** A page of projects as GitLab lists them: each project's entity (`simple`: the basic one). */
export function sendProjectList(ctx: Context, deps: RouteDeps, list: projects.Project[], simple?: boolean) {
  const shaping = projectShaping(deps);
  sendJson(
    ctx,
    200,
    list.map((x) => withAttributes(simple ? basicProjectEntity(x, shaping) : projectEntity(x, shaping), x)),
  );
}
