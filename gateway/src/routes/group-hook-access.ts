import type { common, hooks } from "@canopy/protos";
import type { Call } from "../http/endpoint";
import { param } from "../http/params";
import { rawParams } from "./context";
import { groupRef } from "./groups";

/**
 * Group webhooks (GitLab ee/lib/api/group_hooks.rb, lib/api/hooks/*.rb). GitLab authenticates, finds
 * the group (404 "Group Not Found" when the caller cannot see it) and authorizes (403) in `before`
 * blocks, ahead of parameter validation: so each endpoint declares only `:id`, resolves the group
 * with the groups service, and parses the rest itself; when that fails, the hooks service's access
 * check answers first (AuthorizeHooks), then Grape's 400. The hooks service decides who may do what.
 */

export const idParams = { id: param.idOrPath() };
export type IdCall = Call<typeof idParams>;
/**
 * The other path parameters, declared (for the declaration checks, the fuzz and the API document) as
 * any text: a path segment always is one, so nothing is refused before the access check, and each
 * handler parses its own after it (`afterAccess`).
 */
export const pathParam = param.string();

export type Scope = { actor: common.Actor; group: hooks.GroupScope };

/** The group as the caller may see it (404 "Group Not Found" otherwise) and the caller's access. */
export async function scopeOf(call: IdCall): Promise<Scope> {
  const detail = await call.deps.groups.getGroup({
    actor: call.actor,
    group: groupRef(call.params.id),
    withCustomAttributes: false,
    withRunnersToken: false,
  });
  return { actor: call.actor, group: { groupId: detail.group!.id, accessLevel: detail.accessLevel } };
}

/** Parses with `parse`; on a parameter error the access check answers first (GitLab's order). */
export async function afterAccess<T>(call: IdCall, scope: Scope, write: boolean, parse: () => T): Promise<T> {
  try {
    return parse();
  } catch (err) {
    await call.deps.groupHooks.authorizeHooks({ ...scope, write });
    throw err;
  }
}

/** Route params without null values (a null is taken as not sent). */
export const sentParams = (call: IdCall) =>
  Object.fromEntries(Object.entries(rawParams(call.ctx)).filter(([, v]) => v !== null && v !== undefined));
