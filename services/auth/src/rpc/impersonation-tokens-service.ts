import type { AsyncService } from "@canopy/kit";
import type { impersonationTokens } from "@canopy/protos";
import * as commands from "../commands/impersonation-tokens";
import type { Deps } from "../deps";

/** gRPC handlers of canopy.auth.v1.ImpersonationTokensService. */
export const impersonationTokensService = (
  deps: Deps,
): AsyncService<typeof impersonationTokens.ImpersonationTokensServiceService> => ({
  listImpersonationTokens: (req) => commands.listImpersonationTokens(deps, req),
  createImpersonationToken: (req) => commands.createImpersonationToken(deps, req),
  getImpersonationToken: (req) => commands.getImpersonationToken(deps, req),
  revokeImpersonationToken: (req) => commands.revokeImpersonationToken(deps, req),
});
