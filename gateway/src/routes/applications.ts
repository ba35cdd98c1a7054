import type Router from "@koa/router";
import type { oauth } from "@canopy/protos";
import { paramError } from "../http/errors";
import { sendJson } from "../http/json";
import { param, parseParams } from "../http/params";
import { requireScopes, requireUser } from "../middleware/authenticate";
import { actorOf, rawParams, type RouteDeps } from "./context";

/** GitLab's Application entity (lib/api/entities/application.rb); `secret` only on create and renew. */
const entity = (a: oauth.Application, secret?: string) => ({
  id: a.id,
  application_id: a.uid,
  application_name: a.name,
  callback_url: a.redirectUri,
  confidential: a.confidential,
  scopes: a.scopes,
  ...(secret ? { secret } : {}),
});

/** The admin Applications API: instance-wide applications only (lib/api/applications.rb). */
export function applicationRoutes(router: Router, { oauth: client }: RouteDeps) {
  const api = requireScopes();

  router.post("/applications", requireUser, api, async (ctx) => {
    const raw = rawParams(ctx);
    const p = parseParams(
      {
        name: param.string(255).optional(),
        redirect_uri: param.string(10_000).optional(),
        scopes: param.string(1_000).optional(),
        confidential: param.boolean().optional(),
      },
      raw,
    );
    const problems = [
      p.name === undefined ? "name is missing" : undefined,
      p.redirect_uri === undefined ? "redirect_uri is missing" : undefined,
      p.scopes === undefined ? "scopes is missing" : undefined,
      !p.scopes?.trim() ? "scopes is empty" : undefined,
    ].filter(Boolean);
    if (problems.length) throw paramError(problems.join(", "));
    const created = await client.createApplication({
      actor: actorOf(ctx),
      name: p.name!,
      redirectUri: p.redirect_uri!,
      scopes: p.scopes!.split(/\s+/).filter(Boolean),
      confidential: p.confidential ?? true,
      trusted: false,
      instance: true,
    });
    sendJson(ctx, 201, entity(created.application!, created.secret));
  });

  router.get("/applications", requireUser, api, async (ctx) => {
    const res = await client.listApplications({ actor: actorOf(ctx), instance: true });
    sendJson(
      ctx,
      200,
      res.applications.map((a) => entity(a)),
    );
  });

  router.delete("/applications/:id", requireUser, api, async (ctx) => {
    const { id } = parseParams({ id: param.id() }, rawParams(ctx));
    await client.deleteApplication({ actor: actorOf(ctx), id, instance: true });
    ctx.status = 204;
  });

  router.post("/applications/:id/renew-secret", requireUser, api, async (ctx) => {
    const { id } = parseParams({ id: param.id() }, rawParams(ctx));
    const renewed = await client.renewApplicationSecret({ actor: actorOf(ctx), id, instance: true });
    sendJson(ctx, 201, entity(renewed.application!, renewed.secret));
  });
}
