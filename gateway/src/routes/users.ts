import type Router from "@koa/router";
import { auth } from "@canopy/protos";
import { userBasic, user, userPublic, userWithAdmin } from "../entities/user";
import { paramError } from "../http/errors";
import { sendJson, sendJsonText } from "../http/json";
import { pageRequest, paginationParams, setPaginationHeaders } from "../http/pagination";
import { param, parseParams } from "../http/params";
import { requireScopes, requireUser } from "../middleware/authenticate";
import { actorOf, rawParams, type RouteDeps } from "./context";

/** Attributes POST and PUT /users accept (GitLab lib/api/users.rb), with their types. */
const userAttributeParams = {
  username: param.string(255).optional(),
  email: param.string(255).optional(),
  name: param.string(255).optional(),
  password: param.string(128).optional(),
  admin: param.boolean().optional(),
  two_factor_enabled: param.boolean().optional(),
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
  projects_limit: param.integer().optional(),
  can_create_group: param.boolean().optional(),
  external: param.boolean().optional(),
  private_profile: param.boolean().optional(),
};

type UserParams = ReturnType<typeof parseUserParams>;
const parseUserParams = (raw: Record<string, unknown>) => parseParams(userAttributeParams, raw);

const toAttributes = (p: UserParams): auth.UserAttributes => ({
  username: p.username,
  email: p.email,
  name: p.name,
  password: p.password,
  admin: p.admin,
  twoFactorEnabled: p.two_factor_enabled,
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
});

const idParam = { id: param.id() };

/** GET /user bodies by the (cached) user object they render; dropped with the object. */
const renderedSelf = new WeakMap<auth.User, string>();

export function userRoutes(router: Router, { auth: client, config, cache }: RouteDeps) {
  const url = config.CANOPY_EXTERNAL_URL;
  const readUser = requireScopes("read_user");
  const write = requireScopes();

  router.get("/user", requireUser, readUser, async (ctx) => {
    const actor = actorOf(ctx);
    const cached = ctx.state.user as auth.User | undefined;
    const u = cached ?? (await client.getUser({ actor, id: actor.userId, username: "" }));
    const render = () => JSON.stringify(actor.admin ? userWithAdmin(u, url) : userPublic(u, url));
    // The cached user object lives as long as its authentication answer; so does its rendering.
    const body = cached
      ? (renderedSelf.get(cached) ?? renderedSelf.set(cached, render()).get(cached)!)
      : render();
    sendJsonText(ctx, 200, body);
  });

  router.get("/users", readUser, async (ctx) => {
    const p = parseParams(
      {
        ...paginationParams,
        search: param.string(255).optional(),
        username: param.string(255).optional(),
        active: param.boolean().optional(),
        blocked: param.boolean().optional(),
      },
      rawParams(ctx),
    );
    const actor = actorOf(ctx);
    const state = p.blocked ? "blocked" : p.active ? "active" : "";
    const res = await client.listUsers({
      actor,
      search: p.search ?? "",
      username: p.username ?? "",
      state,
      page: pageRequest(p),
    });
    setPaginationHeaders(ctx, res.page!, res.users.length, url);
    sendJson(
      ctx,
      200,
      res.users.map((u) => (actor.admin ? userWithAdmin(u, url) : userBasic(u, url))),
    );
  });

  router.get("/users/:id", readUser, async (ctx) => {
    const { id } = parseParams(idParam, rawParams(ctx));
    const actor = actorOf(ctx);
    const u = await client.getUser({ actor, id, username: "" });
    sendJson(ctx, 200, actor.admin ? userWithAdmin(u, url) : user(u, url));
  });

  router.post("/users", requireUser, write, async (ctx) => {
    const raw = rawParams(ctx);
    const p = parseUserParams(raw);
    // In the order GitLab declares them: email, at_least_one_of(password, ...), name, username.
    const problems = [
      p.email === undefined && "email is missing",
      p.password === undefined &&
        !p.reset_password &&
        !p.force_random_password &&
        "password, reset_password, force_random_password are missing, at least one parameter must be provided",
      p.name === undefined && "name is missing",
      p.username === undefined && "username is missing",
    ].filter(Boolean);
    if (problems.length) throw paramError(problems.join(", "));
    const u = await client.createUser({ actor: actorOf(ctx), attributes: toAttributes(p) });
    sendJson(ctx, 201, userWithAdmin(u, url));
  });

  router.put("/users/:id", requireUser, write, async (ctx) => {
    const raw = rawParams(ctx);
    const { id } = parseParams(idParam, raw);
    const p = parseUserParams(raw);
    const u = await client.updateUser({ actor: actorOf(ctx), id, attributes: toAttributes(p) });
    // As for a revoked token: drop our own copies now rather than when the event arrives.
    await cache.dropUser(id);
    sendJson(ctx, 200, userWithAdmin(u, url));
  });

  router.delete("/users/:id", requireUser, write, async (ctx) => {
    const { id } = parseParams(idParam, rawParams(ctx));
    await client.deleteUser({ actor: actorOf(ctx), id });
    await cache.dropUser(id);
    ctx.status = 204;
  });

  for (const [action, state] of [
    ["block", auth.UserState.USER_STATE_BLOCKED],
    ["unblock", auth.UserState.USER_STATE_ACTIVE],
  ] as const) {
    router.post(`/users/:id/${action}`, requireUser, write, async (ctx) => {
      const { id } = parseParams(idParam, rawParams(ctx));
      await client.setUserState({ actor: actorOf(ctx), id, state });
      await cache.dropUser(id);
      sendJson(ctx, 201, true);
    });
  }
}
