import type { AsyncService } from "@canopy/kit";
import type { hooks } from "@canopy/protos";
import {
  createHook,
  deleteHookCommand,
  rotateSigningSecret,
  setHookKey,
  unsetHookKey,
  updateHookCommand,
} from "../commands/hook-writes";
import { resendHookEvent, testHook } from "../commands/test-and-resend";
import type { Deps } from "../deps";
import { authorizeHooksCall, getHook, listHookEvents, listHooks } from "../finders/hooks";

/** gRPC handlers of canopy.hooks.v1.GroupHooksService: decode, call, encode. */
export const groupHooksService = (deps: Deps): AsyncService<typeof hooks.GroupHooksServiceService> => ({
  authorizeHooks: async (req) => authorizeHooksCall(deps, req),
  listHooks: (req) => listHooks(deps, req),
  getHook: (req) => getHook(deps, req),
  createHook: (req) => createHook(deps, req),
  updateHook: (req) => updateHookCommand(deps, req),
  deleteHook: (req) => deleteHookCommand(deps, req),
  setUrlVariable: (req) => setHookKey(deps, req, "url_variables"),
  unsetUrlVariable: (req) => unsetHookKey(deps, req, "url_variables"),
  setCustomHeader: (req) => setHookKey(deps, req, "custom_headers"),
  unsetCustomHeader: (req) => unsetHookKey(deps, req, "custom_headers"),
  rotateSigningSecret: (req) => rotateSigningSecret(deps, req),
  testHook: (req) => testHook(deps, req),
  listHookEvents: (req) => listHookEvents(deps, req),
  resendHookEvent: (req) => resendHookEvent(deps, req),
});
