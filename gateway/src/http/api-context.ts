import type { ParameterizedContext } from "koa";
import type { RouterContext } from "@koa/router";
import type { auth, common } from "@canopy/protos";

/** What the authentication middleware leaves on every /api/v4 request. */
export interface ApiState {
  /** Who is calling: anonymous (user id 0), a token's user, or under Sudo the impersonated user. */
  actor: common.Actor;
  /** The actor's user record when authentication already has it (no further call needed). */
  user?: auth.User;
  /** The token is an impersonation token (an administrator's, acting as the user): logs say so. */
  impersonation?: boolean;
}

/** The Koa context of an /api/v4 request, with its state typed. */
export type ApiContext = RouterContext<ApiState> & ParameterizedContext<ApiState>;
