import {
  customAttributeErrors,
  forbidden,
  invalid,
  notFound,
  recordNotFound,
  requireSignedIn,
} from "@canopy/kit";
import type { common, userCustomAttributes } from "@canopy/protos";
import type { Deps } from "../deps";
import * as store from "../store/custom-attributes";
import { findUserById } from "../store/users";

type Attribute = userCustomAttributes.UserCustomAttribute;

/**
 * The user of a custom attributes call (GitLab's CustomAttributesEndpoints on /users/:id). Only
 * administrators may call (the global read/update_custom_attribute): everyone else is 403 before any
 * lookup, so nothing about the user leaks; an administrator gets 404 "User Not Found" for a user
 * that does not exist.
 */
async function userFor(deps: Deps, actor: common.Actor | undefined, userId: number): Promise<number> {
  if (!actor?.admin) throw forbidden();
  if (!(await findUserById(deps.pool, userId))) throw notFound("User");
  return userId;
}

export async function listUserCustomAttributes(
  deps: Deps,
  req: userCustomAttributes.ListUserCustomAttributesRequest,
): Promise<userCustomAttributes.ListUserCustomAttributesResponse> {
  const userId = await userFor(deps, req.actor, req.userId);
  return { customAttributes: await store.findCustomAttributes(deps.pool, userId) };
}

/** A missing key is GitLab's "404 Not found" (lower-case f). */
export async function getUserCustomAttribute(
  deps: Deps,
  req: userCustomAttributes.GetUserCustomAttributeRequest,
): Promise<Attribute> {
  const userId = await userFor(deps, req.actor, req.userId);
  const found = await store.findCustomAttribute(deps.pool, userId, req.key);
  if (!found) throw recordNotFound();
  return found;
}

/** Creates or updates, answering the attribute; blank or oversized keys and values are model errors. */
export async function setUserCustomAttribute(
  deps: Deps,
  req: userCustomAttributes.SetUserCustomAttributeRequest,
): Promise<Attribute> {
  const userId = await userFor(deps, requireSignedIn(req.actor), req.userId);
  const errors = customAttributeErrors(req.key, req.value);
  if (Object.keys(errors).length) throw invalid(errors);
  return store.upsertCustomAttribute(deps.pool, userId, req.key, req.value);
}

export async function deleteUserCustomAttribute(
  deps: Deps,
  req: userCustomAttributes.DeleteUserCustomAttributeRequest,
): Promise<userCustomAttributes.DeleteUserCustomAttributeResponse> {
  const userId = await userFor(deps, requireSignedIn(req.actor), req.userId);
  if (!(await store.deleteCustomAttribute(deps.pool, userId, req.key))) throw recordNotFound();
  return {};
}
