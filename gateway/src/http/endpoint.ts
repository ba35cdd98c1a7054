import type { z } from "zod";
import type { auth, common } from "@canopy/protos";
import type { RouteDeps } from "../routes/context";
import type { ApiContext } from "./api-context";
import type { ClassScopes } from "./scopes";

/**
 * One /api/v4 endpoint, declared once: method, literal path (grep for it), who may call it, the
 * token scopes that reach it, its parameters (http/params.ts) and a named handler. The mounting
 * code (http/mount-endpoints.ts) turns a declaration into the same checks every time, in this
 * order: signed in? scopes? parameters valid? cross-field rules? admin? then the handler
 * (`adminBeforeParams` moves the admin check before the parameters).
 */
export type Access =
  /** Anyone, including callers without a token (a bad token is still refused). */
  | "anonymous"
  /** A signed-in user; anonymous callers get 401. */
  | "user"
  /** An administrator (under Sudo, the impersonated user must be one): 401, then 403. */
  | "admin";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** The statuses a handler answers when all goes well; errors are rendered elsewhere (http/errors.ts). */
export type SuccessStatus = 200 | 201 | 202 | 204 | 304;

/**
 * What each success status carries: a response entity schema (entities/schemas), `null` for an
 * empty body, or `"file"` for bytes of the file's own type. The OpenAPI document
 * (openapi/document.ts) is generated from these, and the e2e suites check every answer against it.
 */
export type Responses = Partial<Record<SuccessStatus, z.ZodType | null | "file">>;

/** What a handler receives: parsed parameters, the caller, and the dependencies it may use. */
export interface Call<S extends z.ZodRawShape> {
  params: z.infer<z.ZodObject<S>>;
  actor: common.Actor;
  /** The caller's user record when authentication already had it. */
  user: auth.User | undefined;
  ctx: ApiContext;
  deps: RouteDeps;
}

export interface Endpoint<S extends z.ZodRawShape = z.ZodRawShape> {
  method: Method;
  /** Koa-router path under /api/v4, written out in full. */
  path: `/${string}`;
  access: Access;
  /**
   * For `admin` endpoints whose Grape namespace runs `authenticated_as_admin!` in a `before` block:
   * other users get 403 before their parameters are looked at (so a 400 tells them nothing).
   */
  adminBeforeParams?: true;
  /**
   * The scopes GitLab's API class for this endpoint registers besides every endpoint's `api` and
   * GET-only `read_api` (http/scopes.ts): `READ_USER` for the Users and Version classes, writes
   * included (a refused token is told of it), `EVERY_TOKEN_SCOPE` for the token's own `self`.
   */
  scopes?: ClassScopes;
  params: S;
  /**
   * Grape's cross-parameter validators (`at_least_one_of`, a required field given as optional so
   * that all messages come at once): the messages to answer 400 with, in GitLab's order.
   */
  validate?: (params: z.infer<z.ZodObject<S>>) => (string | false | undefined)[];
  handler: (call: Call<S>) => Promise<void> | void;
  /** What the handler answers on success, by status. */
  responses: Responses;
  /**
   * A read whose 200 answers may be kept per caller and request (http/answer-cache.ts): only reads
   * whose answer changes with writes the answer cache hears of (the groups and projects contexts').
   */
  cacheAnswers?: true;
}

/** Declares an endpoint; the parameter types flow from `params` into `validate` and `handler`. */
export const endpoint = <S extends z.ZodRawShape>(declaration: Endpoint<S>): Endpoint =>
  declaration as unknown as Endpoint;
