import { grpcStatus, isServiceError } from "@canopy/kit";
import { auth, type common } from "@canopy/protos";
import { user, userBasic, userDetailsWithAdmin, userPublic, userWithAdmin } from "../entities/user";
import { endpoint, type Call } from "../http/endpoint";
import { HttpError } from "../http/errors";
import type { RouteDeps } from "./context";
import { sendJson, sendJsonText } from "../http/json";
import { pageRequest, paginate, paginationParams } from "../http/pagination";
import { param } from "../http/params";
import { READ_USER } from "../http/scopes";
import { z } from "zod";
import {
  User,
  UserBasic,
  UserDetailsWithAdmin,
  UserPublic,
  UserWithAdmin,
  listOf,
} from "../entities/schemas";
import { customAttributesOf } from "./group-lists";
import { rawParams } from "./context";
import { avatarFile } from "./user-avatar";
import { highestRole } from "./user-highest-role";

/** The Users API (GitLab lib/api/users.rb); its state actions (block, ban, ...) are in user-state.ts. */

/**
 * Attributes POST and PUT /users accept, with their types. Not `two_factor_enabled`: GitLab does not
 * take it either, and set without an enrolled secret it would lock the user out of the web.
 */
const userAttributeParams = {
  username: param.string(255).optional(),
  email: param.string(255).optional(),
  name: param.string(255).optional(),
  password: param.string(128).optional(),
  admin: param.boolean().optional(),
  skip_confirmation: param.boolean().optional(),
  reset_password: param.boolean().optional(),
  force_random_password: param.boolean().optional(),
  bio: param.string().optional(),
  location: param.string().optional(),
  public_email: param.string().optional(),
  website_url: param.string().optional(),
  organization: param.string().optional(),
  job_title: param.string().optional(),
  note: param.string().optional(),
  projects_limit: param.int32().optional(),
  can_create_group: param.boolean().optional(),
  external: param.boolean().optional(),
  private_profile: param.boolean().optional(),
  // An identity (GitLab: e.g. provider "ldapmain", extern_uid the person's DN).
  provider: param.string(255).optional(),
  extern_uid: param.string(2048).optional(),
  // A file (multipart); checked by its bytes in the auth service (user-avatar.ts).
  avatar: param.file().optional(),
};
type UserAttributeParams = Call<typeof userAttributeParams>["params"];

const toAttributes = (p: UserAttributeParams): auth.UserAttributes => ({
  username: p.username,
  email: p.email,
  name: p.name,
  password: p.password,
  admin: p.admin,
  skipConfirmation: p.skip_confirmation,
  bio: p.bio,
  location: p.location,
  publicEmail: p.public_email,
  websiteUrl: p.website_url,
  organization: p.organization,
  jobTitle: p.job_title,
  note: p.note,
  projectsLimit: p.projects_limit,
  canCreateGroup: p.can_create_group,
  external: p.external,
  privateProfile: p.private_profile,
  provider: p.provider,
  externUid: p.extern_uid,
});

/** GET /user bodies by the (cached) user object they render; dropped with the object. */
const renderedSelf = new WeakMap<auth.User, string>();

const noParams = {};

async function showCurrentUser({ actor, user: cached, ctx, deps }: Call<typeof noParams>) {
  const url = deps.config.CANOPY_EXTERNAL_URL;
  const u =
    cached ??
    (await deps.auth.getUser({ actor, id: actor.userId, username: "", withCustomAttributes: false }));
  const render = () =>
    JSON.stringify(actor.admin ? userWithAdmin(u, url, deps.config.CANOPY_PLAN) : userPublic(u, url));
  // The cached user object lives as long as its authentication answer; so does its rendering.
  const body = cached
    ? (renderedSelf.get(cached) ?? renderedSelf.set(cached, render()).get(cached)!)
    : render();
  sendJsonText(ctx, 200, body);
}

/** The entity with `custom_attributes`, when an administrator asked for them (ignored for others, as GitLab). */
const withAttributes = <T extends object>(
  actor: common.Actor,
  asked: boolean | undefined,
  u: auth.User,
  entity: T,
) =>
  asked && actor.admin
    ? { ...entity, custom_attributes: u.customAttributes.map(({ key, value }) => ({ key, value })) }
    : entity;

const listUsersParams = {
  ...paginationParams,
  search: param.string(255).optional(),
  username: param.string(255).optional(),
  active: param.boolean().optional(),
  blocked: param.boolean().optional(),
  extern_uid: param.string(2048).optional(),
  provider: param.string(255).optional(),
  with_custom_attributes: param.boolean().optional(),
};

/** Grape's `all_or_none_of :extern_uid, :provider`. */
const identityFilterComplete = (p: Call<typeof listUsersParams>["params"]) => [
  (p.extern_uid === undefined) !== (p.provider === undefined) &&
    "extern_uid, provider provide all or none of parameters",
];

async function listUsers({ params: p, actor, ctx, deps }: Call<typeof listUsersParams>) {
  const url = deps.config.CANOPY_EXTERNAL_URL;
  const res = await deps.auth.listUsers({
    actor,
    search: p.search ?? "",
    username: p.username ?? "",
    // Each filter narrows the list (GitLab's UsersFinder): both together match nobody.
    state: [p.active && "active", p.blocked && "blocked"].filter(Boolean).join(","),
    page: pageRequest(p),
    externUid: p.extern_uid ?? "",
    provider: p.provider ?? "",
    customAttributes: customAttributesOf(rawParams(ctx)),
    withCustomAttributes: Boolean(p.with_custom_attributes),
    // GitLab drops order_by and sort for others, leaving User.search's order; admins get id desc.
    searchOrder: !actor.admin,
  });
  paginate(ctx, url, { offset: res.page!, itemsOnPage: res.users.length });
  sendJson(
    ctx,
    200,
    res.users.map((u) =>
      withAttributes(
        actor,
        p.with_custom_attributes,
        u,
        actor.admin ? userWithAdmin(u, url, deps.config.CANOPY_PLAN) : userBasic(u, url),
      ),
    ),
  );
}

const userIdParams = { id: param.id() };
const showUserParams = { ...userIdParams, with_custom_attributes: param.boolean().optional() };

/** GitLab shows one user to administrators as UserDetailsWithAdmin (GET /user and the lists do not). */
async function showUser({ params, actor, ctx, deps }: Call<typeof showUserParams>) {
  const url = deps.config.CANOPY_EXTERNAL_URL;
  const asked = Boolean(params.with_custom_attributes);
  const u = await deps.auth.getUser({ actor, id: params.id, username: "", withCustomAttributes: asked });
  const entity = actor.admin
    ? userDetailsWithAdmin(u, url, deps.config.CANOPY_PLAN, await highestRole(deps, actor, u))
    : user(u, url, actor);
  sendJson(ctx, 200, withAttributes(actor, asked, u, entity));
}

/** In the order GitLab declares them: email, at_least_one_of(password, ...), name, username. */
const requiredToCreate = (p: UserAttributeParams) => [
  p.email === undefined && "email is missing",
  p.password === undefined &&
    !p.reset_password &&
    !p.force_random_password &&
    "password, reset_password, force_random_password are missing, at least one parameter must be provided",
  p.name === undefined && "name is missing",
  p.username === undefined && "username is missing",
];

/**
 * A username is also the path of the user's personal namespace, which shares its routes with
 * top-level groups: one a group already holds is taken (GitLab's User#namespace_uniq). Asked of the
 * groups service before auth writes; a group made in between leaves that user without a personal
 * namespace until renamed, which the groups service logs.
 */
async function refuseGroupPath(deps: RouteDeps, actor: common.Actor, username: string | undefined) {
  if (!username) return;
  const found = await deps.namespaces
    .getNamespace({ actor, namespace: { id: 0, fullPath: username } })
    .catch((err: unknown) => {
      if (isServiceError(err) && err.code === grpcStatus.NOT_FOUND) return undefined;
      throw err;
    });
  if (found?.kind === "group")
    throw new HttpError(400, { message: { username: ["has already been taken"] } });
}

async function createUser({ params, actor, ctx, deps }: Call<typeof userAttributeParams>) {
  await refuseGroupPath(deps, actor, params.username);
  const u = await deps.auth.createUser({
    actor,
    attributes: toAttributes(params),
    avatar: avatarFile(params.avatar),
  });
  sendJson(ctx, 201, userWithAdmin(u, deps.config.CANOPY_EXTERNAL_URL, deps.config.CANOPY_PLAN));
}

const updateUserParams = { ...userIdParams, ...userAttributeParams };

async function updateUser({ params, actor, ctx, deps }: Call<typeof updateUserParams>) {
  await refuseGroupPath(deps, actor, params.username);
  const u = await deps.auth.updateUser({
    actor,
    id: params.id,
    attributes: toAttributes(params),
    avatar: avatarFile(params.avatar),
  });
  // As for a revoked token: drop our own copies now rather than when the event arrives.
  await deps.cache.dropUser(params.id);
  sendJson(ctx, 200, userWithAdmin(u, deps.config.CANOPY_EXTERNAL_URL, deps.config.CANOPY_PLAN));
}

async function deleteUser({ params, actor, ctx, deps }: Call<typeof userIdParams>) {
  await deps.auth.deleteUser({ actor, id: params.id });
  await deps.cache.dropUser(params.id);
  ctx.status = 204;
}

export const userEndpoints = [
  endpoint({
    method: "GET",
    path: "/user",
    access: "user",
    scopes: READ_USER,
    params: noParams,
    handler: showCurrentUser,
    responses: { 200: z.union([UserPublic, UserWithAdmin]) },
  }),
  endpoint({
    method: "GET",
    path: "/users",
    access: "anonymous",
    scopes: READ_USER,
    params: listUsersParams,
    validate: identityFilterComplete,
    handler: listUsers,
    responses: { 200: z.union([listOf(UserBasic), listOf(UserWithAdmin)]) },
  }),
  endpoint({
    method: "GET",
    path: "/users/:id",
    access: "anonymous",
    scopes: READ_USER,
    params: showUserParams,
    handler: showUser,
    responses: { 200: z.union([User, UserDetailsWithAdmin]) },
  }),
  endpoint({
    method: "POST",
    path: "/users",
    access: "admin",
    scopes: READ_USER,
    params: userAttributeParams,
    validate: requiredToCreate,
    handler: createUser,
    responses: { 201: UserWithAdmin },
  }),
  endpoint({
    method: "PUT",
    path: "/users/:id",
    access: "admin",
    scopes: READ_USER,
    params: updateUserParams,
    handler: updateUser,
    responses: { 200: UserWithAdmin },
  }),
  endpoint({
    method: "DELETE",
    path: "/users/:id",
    access: "admin",
    scopes: READ_USER,
    params: userIdParams,
    handler: deleteUser,
    responses: { 204: null },
  }),
];
