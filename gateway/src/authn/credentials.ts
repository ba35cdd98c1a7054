import type { Context } from "koa";
import { HttpError } from "../http/errors";

/**
 * Where a request's token comes from, as GitLab reads it: the PRIVATE-TOKEN header, an
 * `Authorization: Bearer` header, or the `private_token` / `access_token` parameter. A token in a
 * header and another in a parameter is refused, as rack-oauth2 does.
 */
export function extractToken(ctx: Context, body: Record<string, unknown>): string | undefined {
  const privateToken = ctx.get("PRIVATE-TOKEN") || undefined;
  const authorization = ctx.get("Authorization");
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim();
  const fromParam = [ctx.query.private_token, ctx.query.access_token, body.private_token, body.access_token]
    .flat()
    .find((v): v is string => typeof v === "string" && v !== "");
  if ((privateToken || bearer) && fromParam) {
    throw new HttpError(400, {
      error: "invalid_request",
      error_description: "Both Authorization header and payload includes access token.",
    });
  }
  return privateToken ?? bearer ?? fromParam;
}

/** The Sudo header or `sudo` parameter: a user id or username to act as. */
export function extractSudo(ctx: Context, body: Record<string, unknown>): string | undefined {
  const value = ctx.get("Sudo") || ctx.query.sudo || body.sudo;
  // No user has a NUL byte in their name, and PostgreSQL cannot even compare one.
  if (typeof value === "string" && value.includes("\u0000"))
    throw new HttpError(400, { error: "sudo is invalid" });
  return typeof value === "string" && value !== ""
    ? value
    : typeof value === "number"
      ? String(value)
      : undefined;
}
