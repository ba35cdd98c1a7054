import { createHash } from "node:crypto";
import type Router from "@koa/router";
import { status } from "@grpc/grpc-js";
import { isServiceError } from "@canopy/kit";
import { common } from "@canopy/protos";
import { notFoundError } from "../../http/errors";
import { currentUser, type WebDeps } from "../context";

const ID = /^[1-9]\d{0,15}$/;

/**
 * GitLab's avatar_url of a group, `/uploads/-/system/group/avatar/:id/:filename`: the file, for a
 * visitor who may read the group (signed in through the web session, or anonymous); anything else
 * is the same 404 page, so a private group's avatar tells nothing. The type is the one decided from
 * the bytes at upload, never sniffed again (nosniff), and the file may not run anything even if
 * opened as a document (CSP sandbox).
 */
export function groupAvatarRoutes(router: Router, deps: WebDeps) {
  router.get("/uploads/-/system/group/avatar/:id/:filename", async (ctx) => {
    const { id, filename } = ctx.params as { id: string; filename: string };
    if (!ID.test(id) || !Number.isSafeInteger(Number(id))) throw notFoundError();
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
    const etag = `"${createHash("sha256").update(avatar.content).digest("base64url").slice(0, 27)}"`;
    ctx.set({
      "Content-Type": avatar.contentType,
      "Content-Disposition": `inline; filename="${avatar.filename}"`,
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      // Private: a private group's avatar must not sit in a shared cache. Revalidated by ETag,
      // because a new upload under the same name keeps the URL.
      "Cache-Control": "max-age=0, private, must-revalidate",
      ETag: etag,
    });
    if (avatar.updatedAt) ctx.set("Last-Modified", avatar.updatedAt.toUTCString());
    if (ctx.get("If-None-Match") === etag) {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.body = Buffer.from(avatar.content);
  });
}
