import { checkHookUrl, type UrlGuardOptions } from "../delivery";
import type { Deps } from "../deps";

/**
 * The SSRF guard's options, read afresh for every check from this replica's copy of the application
 * settings (an administrator's change reaches the next save and the next connection, with no
 * restart). The instance's own external URL is allowed, as GitLab allows its own host and port.
 */
export function urlGuardOptions(deps: Pick<Deps, "settings" | "config">): UrlGuardOptions {
  return { settings: deps.settings.current(), instanceUrl: deps.config.CANOPY_EXTERNAL_URL };
}

/** The save-time check (GitLab's PublicUrlValidator): the model error, or undefined when allowed. */
export async function urlBlockedAtSave(deps: Pick<Deps, "settings" | "config">, url: string) {
  const check = await checkHookUrl(url, urlGuardOptions(deps));
  return check.ok ? undefined : `is blocked: ${check.reason}`;
}
