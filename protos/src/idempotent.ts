import type { AuthServiceService } from "./gen/canopy/auth/v1/auth";
import type { SettingsServiceService } from "./gen/canopy/auth/v1/settings";

/**
 * Methods a client may safely send again after UNAVAILABLE: reads, and writes whose repetition
 * changes nothing more. Part of the contract, so it lives beside the generated code.
 */
export const AUTH_IDEMPOTENT_METHODS: (keyof typeof AuthServiceService)[] = [
  "authenticate",
  "getUser",
  "listUsers",
  "listPersonalAccessTokens",
  "getPersonalAccessToken",
  "setUserState",
  "revokePersonalAccessToken",
];

/** Settings reads may be retried; an update is not (each one is a new version and event). */
export const SETTINGS_IDEMPOTENT_METHODS: (keyof typeof SettingsServiceService)[] = [
  "getApplicationSettings",
];
