import type { oauth } from "@canopy/protos";

/** GitLab's Application entity (lib/api/entities/application.rb); `secret` only on create and renew. */
export function application(a: oauth.Application, secret?: string) {
  return {
    id: a.id,
    application_id: a.uid,
    application_name: a.name,
    callback_url: a.redirectUri,
    confidential: a.confidential,
    scopes: a.scopes,
    ...(secret ? { secret } : {}),
  };
}
