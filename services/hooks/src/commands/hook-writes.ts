import {
  apiError,
  grapeError,
  invalidWith,
  notFound,
  recordNotFound,
  withTransaction,
  type PoolClient,
} from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import { authorizeHooks } from "../domain/access";
import { applyUpdateResets, createErrorMessage, updateError, type HookValues } from "../domain/hook-rules";
import type { Deps } from "../deps";
import { hookMessage } from "../domain/hook-message";
import { newSigningSecret } from "../delivery";
import {
  deleteHook,
  findHook,
  insertHook,
  lockGroupHooks,
  setSigningSecret,
  updateHook,
  type Hook,
} from "../store/hooks";
import { anySent, DEFAULT_VALUES, validateHook, withAttributes } from "./save-hook";

/**
 * The group-hook writes (ee/lib/api/group_hooks.rb, lib/api/helpers/web_hooks_helpers.rb,
 * lib/api/hooks/{url_variables,custom_headers}.rb): each authorizes, finds the hook of the group
 * (404 "Not found" otherwise) under a row lock, validates as the model does and saves.
 */

/** The group's hook, locked for the transaction; 404 "Not found" when it is not the group's. */
async function lockedHook(deps: Deps, tx: PoolClient, groupId: number, hookId: number): Promise<Hook> {
  const hook = await findHook(tx, deps.secrets, groupId, hookId, true);
  if (!hook) throw recordNotFound();
  return hook;
}

/** GitLab's check_unmodified_since!: 412 when the hook changed after the given time. */
function checkUnmodifiedSince(hook: Hook, since: Date | undefined) {
  // HTTP dates have whole seconds: a change within the given second is not "after" it.
  if (since && Math.floor(hook.updated_at.getTime() / 1000) > Math.floor(since.getTime() / 1000))
    throw apiError(412, "412 Precondition Failed");
}

export async function createHook(
  deps: Deps,
  req: hooks.CreateHookRequest,
): Promise<hooks.CreateHookResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  const attributes = req.attributes!;
  const signingSecret = newSigningSecret();
  const hook = await withTransaction(deps.pool, async (tx) => {
    await lockGroupHooks(tx, groupId);
    const { values, errors } = await validateHook(deps, withAttributes(DEFAULT_VALUES, attributes), {
      tx,
      groupId,
    });
    if (Object.keys(errors).length) throw grapeError(422, createErrorMessage(errors));
    return insertHook(tx, deps.secrets, groupId, values, signingSecret);
  });
  deps.log.info({ hook_id: hook.id, group_id: groupId }, "group hook created");
  return { hook: hookMessage(hook, deps.config.CANOPY_HOOK_AUTO_DISABLE), signingSecret };
}

/** Saves `next` over `hook` as an update does (resets, validations); `fail` maps the errors. */
async function saveUpdate(
  deps: Deps,
  tx: PoolClient,
  hook: Hook,
  next: HookValues,
  tokenSent: boolean,
  fail: (errors: Record<string, string[]>) => Error,
): Promise<Hook> {
  const { values, errors } = await validateHook(deps, applyUpdateResets(hook, next, tokenSent));
  if (Object.keys(errors).length) throw fail(errors);
  return updateHook(tx, deps.secrets, hook.id, values);
}

export async function updateHookCommand(deps: Deps, req: hooks.UpdateHookRequest): Promise<hooks.GroupHook> {
  const groupId = authorizeHooks(req.actor, req.group);
  const attributes = req.attributes!;
  const saved = await withTransaction(deps.pool, async (tx) => {
    const hook = await lockedHook(deps, tx, groupId, req.hookId);
    if (!anySent(attributes)) throw grapeError(400, "No parameters provided");
    checkUnmodifiedSince(hook, req.ifUnmodifiedSince);
    return saveUpdate(
      deps,
      tx,
      hook,
      withAttributes(hook, attributes),
      attributes.token !== undefined,
      (e) => {
        const answer = updateError(e);
        return "error" in answer ? grapeError(422, answer.error) : invalidWith(422, answer.fields);
      },
    );
  });
  return hookMessage(saved, deps.config.CANOPY_HOOK_AUTO_DISABLE);
}

export async function deleteHookCommand(
  deps: Deps,
  req: hooks.DeleteHookRequest,
): Promise<hooks.DeleteHookResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  await withTransaction(deps.pool, async (tx) => {
    const hook = await lockedHook(deps, tx, groupId, req.hookId);
    checkUnmodifiedSince(hook, req.ifUnmodifiedSince);
    await deleteHook(tx, hook.id);
  });
  deps.log.info({ hook_id: req.hookId, group_id: groupId }, "group hook deleted");
  return {};
}

type MapAttribute = "url_variables" | "custom_headers";

/** PUT .../url_variables/:key and .../custom_headers/:key: 422 "Illegal key or value" when invalid. */
export async function setHookKey(
  deps: Deps,
  req: hooks.SetHookKeyRequest,
  attribute: MapAttribute,
): Promise<hooks.SetHookKeyResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  await withTransaction(deps.pool, async (tx) => {
    const hook = await lockedHook(deps, tx, groupId, req.hookId);
    const next = { ...hook, [attribute]: { ...hook[attribute], [req.key]: req.value } };
    await saveUpdate(deps, tx, hook, next, false, () => grapeError(422, "Illegal key or value"));
  });
  return {};
}

const UNSET = {
  url_variables: { resource: "URL variable", failure: "Could not unset variable" },
  custom_headers: { resource: "Custom header", failure: "Could not unset custom header" },
};

/** DELETE .../url_variables/:key and .../custom_headers/:key: 404 when the key is not there. */
export async function unsetHookKey(
  deps: Deps,
  req: hooks.UnsetHookKeyRequest,
  attribute: MapAttribute,
): Promise<hooks.SetHookKeyResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  await withTransaction(deps.pool, async (tx) => {
    const hook = await lockedHook(deps, tx, groupId, req.hookId);
    if (!Object.hasOwn(hook[attribute], req.key)) throw notFound(UNSET[attribute].resource);
    const rest = Object.fromEntries(Object.entries(hook[attribute]).filter(([k]) => k !== req.key));
    await saveUpdate(deps, tx, hook, { ...hook, [attribute]: rest }, false, () =>
      grapeError(422, UNSET[attribute].failure),
    );
  });
  return {};
}

/** A new Standard Webhooks signing secret, answered once. */
export async function rotateSigningSecret(
  deps: Deps,
  req: hooks.HookRequest,
): Promise<hooks.RotateSigningSecretResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  const signingSecret = newSigningSecret();
  await withTransaction(deps.pool, async (tx) => {
    const hook = await lockedHook(deps, tx, groupId, req.hookId);
    await setSigningSecret(tx, deps.secrets, hook.id, signingSecret);
  });
  deps.log.info({ hook_id: req.hookId, group_id: groupId }, "hook signing secret rotated");
  return { signingSecret };
}
