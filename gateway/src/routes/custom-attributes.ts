import type { z } from "zod";
import type { common } from "@canopy/protos";
import { CustomAttribute, listOf } from "../entities/schemas";
import { endpoint, type Call, type Endpoint } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import type { ClassScopes } from "../http/scopes";
import type { RouteDeps } from "./context";

/**
 * Custom attributes of groups, projects and users (GitLab lib/api/custom_attributes_endpoints.rb,
 * reference §4.16). Administrators only, decided by the owning service: GETs are open routes (an
 * anonymous caller gets 403, not 401), writes need a user (401) and valid parameters (400) first.
 */

interface Attribute {
  key: string;
  value: string;
}

/** How one kind of owner's service is called, the owner given as the path's `:id`. */
export interface CustomAttributeCalls<Id> {
  list(deps: RouteDeps, actor: common.Actor, owner: Id): Promise<Attribute[]>;
  get(deps: RouteDeps, actor: common.Actor, owner: Id, key: string): Promise<Attribute>;
  set(deps: RouteDeps, actor: common.Actor, owner: Id, key: string, value: string): Promise<Attribute>;
  remove(deps: RouteDeps, actor: common.Actor, owner: Id, key: string): Promise<unknown>;
}

/**
 * A ceiling well above the services' own limit (10,000 characters, answered as a model error), so
 * that nothing larger crosses to a service at all. Keys live in the path; the services answer the
 * model's limits (at most 255 characters).
 */
const VALUE_CEILING = 65_536;

const attribute = (a: Attribute) => ({ key: a.key, value: a.value });

/**
 * The four endpoints of `list.path` and `one.path`; `scopes` are
 * those of the GitLab API class the resource belongs to (users: `read_user`).
 */
export function customAttributeEndpoints<I extends z.ZodTypeAny>(
  // Both paths written out by the caller, so that each is found by grepping it.
  list: { path: `/${string}/:id/custom_attributes` },
  one: { path: `/${string}/:id/custom_attributes/:key` },
  id: I,
  calls: CustomAttributeCalls<z.infer<I>>,
  scopes?: ClassScopes,
): Endpoint[] {
  const listParams = { id };
  const keyParams = { id, key: param.string() };
  const setParams = { ...keyParams, value: param.string(VALUE_CEILING) };
  type Params<S extends z.ZodRawShape> = Call<S>["params"] & { id: z.infer<I> };
  return [
    endpoint({
      method: "GET",
      path: list.path,
      access: "anonymous",
      scopes,
      params: listParams,
      handler: async ({ params: p, actor, ctx, deps }) =>
        sendJson(
          ctx,
          200,
          (await calls.list(deps, actor, (p as Params<typeof listParams>).id)).map(attribute),
        ),
      responses: { 200: listOf(CustomAttribute) },
    }),
    endpoint({
      method: "GET",
      path: one.path,
      access: "anonymous",
      scopes,
      params: keyParams,
      handler: async ({ params: p, actor, ctx, deps }) =>
        sendJson(
          ctx,
          200,
          attribute(await calls.get(deps, actor, (p as Params<typeof keyParams>).id, p.key)),
        ),
      responses: { 200: CustomAttribute },
    }),
    endpoint({
      method: "PUT",
      path: one.path,
      access: "user",
      scopes,
      params: setParams,
      // 200, not 201, on create as on update.
      handler: async ({ params: p, actor, ctx, deps }) =>
        sendJson(
          ctx,
          200,
          attribute(await calls.set(deps, actor, (p as Params<typeof setParams>).id, p.key, p.value)),
        ),
      responses: { 200: CustomAttribute },
    }),
    endpoint({
      method: "DELETE",
      path: one.path,
      access: "user",
      scopes,
      params: keyParams,
      handler: async ({ params: p, actor, ctx, deps }) => {
        await calls.remove(deps, actor, (p as Params<typeof keyParams>).id, p.key);
        ctx.status = 204;
      },
      responses: { 204: null },
    }),
  ];
}
