import { loadInstanceKeys, resealTask, SealingKeys, type BackgroundTask, type Pool } from "@canopy/kit";
import type { Deps } from "./deps";
import type { HooksConfig } from "./config";

/** The sealed columns of `hooks`; each is bound to its hook and attribute (the column less `_sealed`). */
const SEALED = [
  "url_sealed",
  "token_sealed",
  "url_variables_sealed",
  "custom_headers_sealed",
  "signing_secret_sealed",
];
const contextOf = (hookId: number | string, attribute: string) => `hook:${hookId}:${attribute}`;

/**
 * Seals hook secrets at rest (url, token, url_variables, custom_headers, signing secret), as GitLab
 * encrypts them with attr_encrypted: AES-256-GCM under a key derived from CANOPY_SECRET_KEY, or from
 * a key generated once and kept in `instance_secrets` (shared by every replica and restart). Each
 * value is bound to its hook and attribute, so a sealed value copied elsewhere does not open.
 */
export class HookSecrets {
  constructor(readonly keys: SealingKeys) {}

  static async load(
    pool: Pool,
    config: Pick<HooksConfig, "CANOPY_SECRET_KEY" | "CANOPY_SECRET_KEY_PREVIOUS">,
  ) {
    return new HookSecrets(
      new SealingKeys(await loadInstanceKeys(pool, "hook_secrets_key", config), "hook-secrets"),
    );
  }

  seal(hookId: number, attribute: string, value: string): Buffer {
    return this.keys.seal(value, contextOf(hookId, attribute));
  }

  open(hookId: number, attribute: string, sealed: Buffer): string {
    return this.keys.open(sealed, contextOf(hookId, attribute));
  }
}

/** After a key rotation: every hook's secrets moved to the current key. */
export const resealHooks = (deps: Deps): BackgroundTask[] =>
  resealTask(deps, deps.secrets.keys, {
    table: "hooks",
    key: "id",
    columns: SEALED,
    contextOf: (id, column) => contextOf(id, column.replace(/_sealed$/, "")),
  });
