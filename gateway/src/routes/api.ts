import type { Endpoint } from "../http/endpoint";
import { applicationSettingsEndpoints } from "./application-settings";
import { applicationEndpoints } from "./applications";
import { personalAccessTokenEndpoints } from "./personal-access-tokens";
import { userEndpoints } from "./users";
import { versionEndpoints } from "./version";

/**
 * Every /api/v4 endpoint, one file per GitLab API area. The fuzz test walks this list, so an
 * endpoint added here is fuzzed without a test of its own. Where two paths overlap
 * (`/personal_access_tokens/self` and `/:id`), the literal one must come first.
 */
export const API_ENDPOINTS: readonly Endpoint[] = [
  ...userEndpoints,
  ...personalAccessTokenEndpoints,
  ...applicationEndpoints,
  ...applicationSettingsEndpoints,
  ...versionEndpoints,
];
