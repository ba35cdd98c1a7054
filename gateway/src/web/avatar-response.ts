import { createHash } from "node:crypto";
import type { Context } from "koa";

/** An avatar as a service hands it over (groups' and auth's messages share this shape). */
export interface AvatarFile {
  filename: string;
  contentType: string;
  content: Uint8Array;
  updatedAt?: Date;
}

/**
 * Sends an avatar file at its avatar URL, for groups and users alike. The type is the one decided
 * from the bytes at upload, never sniffed again (nosniff), and the file may not run anything even if
 * opened as a document (CSP sandbox). Private: a private group's avatar must not sit in a shared
 * cache. Revalidated by ETag, because a new upload under the same name keeps the URL.
 */
export function sendAvatar(ctx: Context, avatar: AvatarFile): void {
  const etag = `"${createHash("sha256").update(avatar.content).digest("base64url").slice(0, 27)}"`;
  ctx.set({
    "Content-Type": avatar.contentType,
    "Content-Disposition": `inline; filename="${avatar.filename}"`,
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
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
}
