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

const invalidSudo = () => new HttpError(400, { error: "sudo is invalid" });

/**
 * The Sudo header or `sudo` parameter: a user id or username to act as. Given more than once
 * (`?sudo=a&sudo=b`, query and body, header and parameter) it is refused rather than resolved:
 * two readers of one request must never disagree about whom it acts as.
 */
export function extractSudo(ctx: Context, body: Record<string, unknown>): string | undefined {
  // A repeated query parameter arrives as an array; a body's array or object is no user at all.
  const given = [ctx.get("Sudo") || undefined, ...[ctx.query.sudo].flat(), body.sudo].filter(
    (v) => v !== undefined && v !== null && v !== "",
  );
  if (given.length === 0) return undefined;
  const value = given[0];
  if (given.length > 1 || (typeof value !== "string" && typeof value !== "number")) throw invalidSudo();
  const who = String(value);
  // No user has a NUL byte in their name (PostgreSQL cannot even compare one), and no user id is
  // beyond what a bigint and a JavaScript number both hold.
  if (who.includes("\u0000")) throw invalidSudo();
  if (/^\d+$/.test(who) && !Number.isSafeInteger(Number(who))) throw invalidSudo();
  return who;
}
