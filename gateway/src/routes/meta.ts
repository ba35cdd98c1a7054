import type Router from "@koa/router";
import { sendJson } from "../http/json";
import { requireScopes, requireUser } from "../middleware/authenticate";

/** The GitLab API version Canopy answers like; clients check it to choose features. */
export const GITLAB_VERSION = "17.5.0";

export function metaRoutes(router: Router) {
  router.get("/version", requireUser, requireScopes("read_user"), (ctx) => {
    sendJson(ctx, 200, {
      version: GITLAB_VERSION,
      revision: process.env.CANOPY_REVISION ?? "canopy",
      kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      enterprise: true,
    });
  });
}
