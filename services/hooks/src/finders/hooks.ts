import { pageInfo, pageWindow, recordNotFound } from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import { authorizeHooks } from "../domain/access";
import type { Deps } from "../deps";
import { hookMessage } from "../domain/hook-message";
import { findHook, listGroupHooks } from "../store/hooks";
import { listLogs } from "../store/logs";

export function authorizeHooksCall(
  _deps: Deps,
  req: hooks.AuthorizeHooksRequest,
): hooks.AuthorizeHooksResponse {
  authorizeHooks(req.actor, req.group);
  return {};
}

export async function listHooks(deps: Deps, req: hooks.ListHooksRequest): Promise<hooks.ListHooksResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  const window = pageWindow(req.page);
  const { hooks: list, total } = await listGroupHooks(deps.pool, deps.secrets, groupId, window);
  return {
    hooks: list.map((h) => hookMessage(h, deps.config.CANOPY_HOOK_AUTO_DISABLE)),
    page: pageInfo(window, total),
  };
}

export async function getHook(deps: Deps, req: hooks.HookRequest): Promise<hooks.GroupHook> {
  const groupId = authorizeHooks(req.actor, req.group);
  const hook = await findHook(deps.pool, deps.secrets, groupId, req.hookId);
  if (!hook) throw recordNotFound();
  return hookMessage(hook, deps.config.CANOPY_HOOK_AUTO_DISABLE);
}

/** GET .../events: the hook's log rows of the last 7 days, newest first, filtered by status. */
export async function listHookEvents(
  deps: Deps,
  req: hooks.ListHookEventsRequest,
): Promise<hooks.ListHookEventsResponse> {
  const groupId = authorizeHooks(req.actor, req.group);
  const hook = await findHook(deps.pool, deps.secrets, groupId, req.hookId);
  if (!hook) throw recordNotFound();
  const window = pageWindow(req.page);
  const { logs, total } = await listLogs(deps.pool, hook.id, req.status, window);
  return {
    events: logs.map((l) => ({
      id: l.id,
      url: l.url,
      trigger: l.trigger,
      requestHeadersJson: JSON.stringify(l.request_headers),
      requestDataJson: JSON.stringify(l.request_data),
      responseHeadersJson: JSON.stringify(l.response_headers),
      responseBody: l.response_body,
      executionDuration: l.execution_duration,
      responseStatus: l.response_status,
      createdAt: l.created_at,
    })),
    page: pageInfo(window, total),
  };
}
