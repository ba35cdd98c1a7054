import type { auth } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";
import { iso, orNull } from "./time";

/** GitLab's PersonalAccessToken entity; `token` only on creation. */
export function personalAccessToken(
  t: auth.PersonalAccessToken,
): z.infer<typeof schemas.PersonalAccessToken> {
  return {
    id: t.id,
    name: t.name,
    revoked: t.revoked,
    created_at: iso(t.createdAt),
    description: orNull(t.description),
    scopes: t.scopes,
    user_id: t.userId,
    last_used_at: iso(t.lastUsedAt),
    active: t.active,
    expires_at: orNull(t.expiresAt),
  };
}

/** GitLab's ImpersonationToken entity: a personal access token saying whether it impersonates. */
export const impersonationToken = (
  t: auth.PersonalAccessToken,
): z.infer<typeof schemas.ImpersonationToken> => ({
  ...personalAccessToken(t),
  impersonation: t.impersonation,
});
