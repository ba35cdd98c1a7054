import { userState } from "@canopy/protos";
import { z } from "zod";
import { UserStateSuccess } from "../entities/schemas";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { param } from "../http/params";
import { READ_USER } from "../http/scopes";

/**
 * The user state actions of GitLab's Users API (lib/api/users.rb): POST /users/:id/block, unblock,
 * ban, unban, deactivate, activate, approve and reject. The auth service applies the state machine
 * and answers refusals with GitLab's status and message; this file turns its outcome into GitLab's
 * body, which differs per action (true, null, false, or {"message":"Success"}).
 *
 * Every change reaches every gateway at once: this one drops the user's cached authentications
 * before answering, the others on the UserUpdated (or UserDeleted) event auth records with it.
 */

const A = userState.UserStateAction;
const Outcome = userState.UserStateOutcome;

const userIdParams = { id: param.id() };
type StateCall = Call<typeof userIdParams>;

type Answer = { status: number; body: unknown };

/** GitLab's answer per outcome: the endpoint's return value, `null` where it `break`s. */
const plainAnswers = (noTransition: boolean | null): Record<number, Answer> => ({
  [Outcome.USER_STATE_OUTCOME_CHANGED]: { status: 201, body: true },
  [Outcome.USER_STATE_OUTCOME_ALREADY]: { status: 201, body: null },
  [Outcome.USER_STATE_OUTCOME_NO_TRANSITION]: { status: 201, body: noTransition },
});

/** Approve's and reject's success goes out through GitLab's error helper: a message and a status. */
const success = (status: number): Record<number, Answer> => ({
  [Outcome.USER_STATE_OUTCOME_CHANGED]: { status, body: { message: "Success" } },
});

async function changeState(
  { params, actor, ctx, deps }: StateCall,
  action: userState.UserStateAction,
  answers: Record<number, Answer>,
) {
  const res = await deps.userState.changeUserState({ actor, userId: params.id, action });
  // Before answering: the caller's next request may come back here before the event does.
  if (res.outcome === Outcome.USER_STATE_OUTCOME_CHANGED) await deps.cache.dropUser(params.id);
  const answer = answers[res.outcome];
  if (!answer) throw new Error(`unexpected outcome ${res.outcome} of user state action ${action}`);
  sendJson(ctx, answer.status, answer.body);
}

const blockUser = (call: StateCall) => changeState(call, A.USER_STATE_ACTION_BLOCK, plainAnswers(null));
const unblockUser = (call: StateCall) => changeState(call, A.USER_STATE_ACTION_UNBLOCK, plainAnswers(false));
const banUser = (call: StateCall) => changeState(call, A.USER_STATE_ACTION_BAN, plainAnswers(null));
const unbanUser = (call: StateCall) => changeState(call, A.USER_STATE_ACTION_UNBAN, plainAnswers(null));
const deactivateUser = (call: StateCall) =>
  changeState(call, A.USER_STATE_ACTION_DEACTIVATE, plainAnswers(null));
const activateUser = (call: StateCall) =>
  changeState(call, A.USER_STATE_ACTION_ACTIVATE, plainAnswers(false));
const approveUser = (call: StateCall) => changeState(call, A.USER_STATE_ACTION_APPROVE, success(201));
const rejectUser = (call: StateCall) => changeState(call, A.USER_STATE_ACTION_REJECT, success(200));

export const userStateEndpoints = [
  // 201 true; null when already blocked (banned and pending users count as blocked).
  endpoint({
    method: "POST",
    path: "/users/:id/block",
    access: "admin",
    scopes: READ_USER,
    params: userIdParams,
    handler: blockUser,
    responses: { 201: z.literal(true).nullable() },
  }),
  // 201 true; false for a user the state machine cannot activate (an active one).
  endpoint({
    method: "POST",
    path: "/users/:id/unblock",
    access: "admin",
    scopes: READ_USER,
    params: userIdParams,
    handler: unblockUser,
    responses: { 201: z.boolean() },
  }),
  endpoint({
    method: "POST",
    path: "/users/:id/ban",
    access: "admin",
    scopes: READ_USER,
    params: userIdParams,
    handler: banUser,
    responses: { 201: z.literal(true) },
  }),
  endpoint({
    method: "POST",
    path: "/users/:id/unban",
    access: "admin",
    scopes: READ_USER,
    params: userIdParams,
    handler: unbanUser,
    responses: { 201: z.literal(true) },
  }),
  // 201 true; null when already deactivated.
  endpoint({
    method: "POST",
    path: "/users/:id/deactivate",
    access: "admin",
    scopes: READ_USER,
    params: userIdParams,
    handler: deactivateUser,
    responses: { 201: z.literal(true).nullable() },
  }),
  // 201 true; false for an active user (nothing to activate).
  endpoint({
    method: "POST",
    path: "/users/:id/activate",
    access: "admin",
    scopes: READ_USER,
    params: userIdParams,
    handler: activateUser,
    responses: { 201: z.boolean() },
  }),
  // Signed-in callers: GitLab finds the user (404) before its service refuses non-administrators (403).
  endpoint({
    method: "POST",
    path: "/users/:id/approve",
    access: "user",
    scopes: READ_USER,
    params: userIdParams,
    handler: approveUser,
    responses: { 201: UserStateSuccess },
  }),
  endpoint({
    method: "POST",
    path: "/users/:id/reject",
    access: "user",
    scopes: READ_USER,
    params: userIdParams,
    handler: rejectUser,
    responses: { 200: UserStateSuccess },
  }),
];
