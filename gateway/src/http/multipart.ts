import type { Context, Next } from "koa";
import multer from "multer";
import { HttpError } from "./errors";

/**
 * multipart/form-data bodies (gitbeaker sends PUT /users/:id this way; GitLab accepts it everywhere).
 * Fields only for now: a file part is refused with 400 until an endpoint takes uploads.
 */
export function multipartFields(maxBytes: number) {
  const parse = multer({ limits: { fieldSize: maxBytes, fields: 200, files: 0, parts: 200 } }).none();
  return async function parseMultipart(ctx: Context, next: Next) {
    if (!ctx.is("multipart/form-data")) return next();
    await new Promise<void>((resolve, reject) =>
      parse(ctx.req as never, ctx.res as never, (err: unknown) =>
        err ? reject(multipartError(err)) : resolve(),
      ),
    );
    ctx.request.body = { ...((ctx.req as unknown as { body?: Record<string, unknown> }).body ?? {}) };
    return next();
  };
}

function multipartError(err: unknown): HttpError {
  const code = (err as { code?: string }).code ?? "";
  if (code === "LIMIT_FIELD_VALUE" || code === "LIMIT_FIELD_COUNT" || code === "LIMIT_PART_COUNT") {
    return new HttpError(413, { error: "413 Request Entity Too Large" });
  }
  if (code === "LIMIT_UNEXPECTED_FILE" || code === "LIMIT_FILE_COUNT") {
    return new HttpError(400, { error: "file uploads are not accepted here" });
  }
  return new HttpError(400, { error: "body is not valid multipart/form-data" });
}
