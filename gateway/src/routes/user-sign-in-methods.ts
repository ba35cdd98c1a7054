import { endpoint, type Call } from "../http/endpoint";
import { param } from "../http/params";
import { READ_USER } from "../http/scopes";

/** Administrators' actions on another user's sign-in methods (GitLab lib/api/users.rb). */

const userIdParams = { id: param.id() };

/**
 * An administrator turns off another user's two-factor authentication (GitLab: 204; 400 when it is
 * not on; 403 for administrators' accounts, which the auth service refuses).
 */
async function disableTwoFactor({ params, actor, ctx, deps }: Call<typeof userIdParams>) {
  await deps.auth.disableTwoFactor({ actor, userId: params.id, password: "" });
  // The cached user behind GET /user shows two_factor_enabled: drop it now, not when the event lands.
  await deps.cache.dropUser(params.id);
  ctx.status = 204;
}

const identityParams = { id: param.id(), provider: param.string(255) };

/** DELETE /users/:id/identities/:provider: 204, or 404 User / Identity Not Found. */
async function deleteIdentity({ params, actor, ctx, deps }: Call<typeof identityParams>) {
  await deps.auth.deleteUserIdentity({ actor, id: params.id, provider: params.provider });
  await deps.cache.dropUser(params.id);
  ctx.status = 204;
}

export const userSignInMethodEndpoints = [
  endpoint({
    method: "DELETE",
    path: "/users/:id/identities/:provider",
    access: "admin",
    scopes: READ_USER,
    params: identityParams,
    handler: deleteIdentity,
    responses: { 204: null },
  }),
  endpoint({
    method: "PATCH",
    path: "/users/:id/disable_two_factor",
    access: "admin",
    scopes: READ_USER,
    params: userIdParams,
    handler: disableTwoFactor,
    responses: { 204: null },
  }),
];
