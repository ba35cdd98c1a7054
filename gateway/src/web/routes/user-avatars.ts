import type Router from "@koa/router";
import { status } from "@grpc/grpc-js";
import { isServiceError } from "@canopy/kit";
import { common } from "@canopy/protos";
import { notFoundError } from "../../http/errors";
import { sendAvatar } from "../avatar-response";
import type { WebDeps } from "../context";
import { AVATAR_OWNER_ID } from "./group-avatars";

/**
 * GitLab's avatar_url of a user, `/uploads/-/system/user/avatar/:id/:filename`. Users' avatars are
 * public in GitLab (shown beside their name on public pages), so no session is read. A missing
 * user, no avatar or an old file name: the same 404 page.
 */
export function userAvatarRoutes(router: Router, deps: WebDeps) {
  router.get("/uploads/-/system/user/avatar/:id/:filename", async (ctx) => {
    const { id, filename } = ctx.params as { id: string; filename: string };
    if (!AVATAR_OWNER_ID.test(id) || !Number.isSafeInteger(Number(id))) throw notFoundError();
    const avatar = await deps.userAvatars
      .getUserAvatar({ actor: common.Actor.fromPartial({}), userId: Number(id), filename })
      .catch((err: unknown) => {
        throw isServiceError(err) && err.code === status.NOT_FOUND ? notFoundError() : err;
      });
    sendAvatar(ctx, avatar);
  });
}
