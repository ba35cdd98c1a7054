import type Router from "@koa/router";
import { status } from "@grpc/grpc-js";
import { isServiceError } from "@canopy/kit";
import { common } from "@canopy/protos";
import { notFoundError } from "../../http/errors";
import { sendAvatar } from "../avatar-response";
import { currentUser, type WebDeps } from "../context";

export const AVATAR_OWNER_ID = /^[1-9]\d{0,15}$/;

/**
 * GitLab's avatar_url of a group, `/uploads/-/system/group/avatar/:id/:filename`: the file, for a
 * visitor who may read the group (signed in through the web session, or anonymous); anything else
 * is the same 404 page, so a private group's avatar tells nothing.
 */
export function groupAvatarRoutes(router: Router, deps: WebDeps) {
  router.get("/uploads/-/system/group/avatar/:id/:filename", async (ctx) => {
    const { id, filename } = ctx.params as { id: string; filename: string };
    if (!AVATAR_OWNER_ID.test(id) || !Number.isSafeInteger(Number(id))) throw notFoundError();
    const visitor = await currentUser(ctx, deps);
    const avatar = await deps.groupAvatars
      .getAvatar({
        actor: visitor?.actor ?? common.Actor.fromPartial({}),
        group: { id: Number(id), fullPath: "" },
        filename,
      })
      .catch((err: unknown) => {
        // Missing, unreadable or renamed: one answer. A service that is down stays a 503.
        throw isServiceError(err) && err.code === status.NOT_FOUND ? notFoundError() : err;
      });
    sendAvatar(ctx, avatar);
  });
}
