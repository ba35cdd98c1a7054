import type { Context, Next } from "koa";
import multer from "multer";
import { HttpError } from "./errors";

/** A file part of a multipart body, held in memory (bounded by the body limit). */
export class UploadedFile {
  constructor(
    readonly filename: string,
    readonly content: Buffer,
    /** What the client claimed; never trusted for anything but logs. */
    readonly claimedType: string,
  ) {}
}

const FILES = Symbol("uploaded files");

/** The file parts of the request by field name (empty without a multipart body). */
export const uploadedFiles = (ctx: Context): Record<string, UploadedFile[]> =>
  ((ctx.state as Record<symbol, unknown>)[FILES] as Record<string, UploadedFile[]> | undefined) ?? {};

/**
 * multipart/form-data bodies (gitbeaker sends PUT /users/:id this way, avatar uploads come this way;
 * GitLab accepts it everywhere). Fields become the body; file parts are kept apart, and only an
 * endpoint that declares that field as a file (`param.file()`) takes them: everywhere else a file
 * part is refused with 400 (see mount-endpoints.ts), and pages never see them.
 */
export function multipartFields(maxBytes: number) {
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: { fieldSize: maxBytes, fileSize: maxBytes, fields: 200, files: 5, parts: 200 },
  }).any();
  return async function parseMultipart(ctx: Context, next: Next) {
    if (!ctx.is("multipart/form-data")) return next();
    await new Promise<void>((resolve, reject) =>
      parse(ctx.req as never, ctx.res as never, (err: unknown) =>
        err ? reject(multipartError(err)) : resolve(),
      ),
    );
    const req = ctx.req as unknown as { body?: Record<string, unknown>; files?: Express.Multer.File[] };
    ctx.request.body = { ...(req.body ?? {}) };
    const files: Record<string, UploadedFile[]> = {};
    for (const f of req.files ?? [])
      (files[f.fieldname] ??= []).push(new UploadedFile(f.originalname, f.buffer, f.mimetype));
    (ctx.state as Record<symbol, unknown>)[FILES] = files;
    return next();
  };
}

function multipartError(err: unknown): HttpError {
  const code = (err as { code?: string }).code ?? "";
  if (
    code === "LIMIT_FIELD_VALUE" ||
    code === "LIMIT_FIELD_COUNT" ||
    code === "LIMIT_PART_COUNT" ||
    code === "LIMIT_FILE_SIZE"
  ) {
    return new HttpError(413, { error: "413 Request Entity Too Large" });
  }
  if (code === "LIMIT_UNEXPECTED_FILE" || code === "LIMIT_FILE_COUNT") {
    return new HttpError(400, { error: "file uploads are not accepted here" });
  }
  return new HttpError(400, { error: "body is not valid multipart/form-data" });
}
