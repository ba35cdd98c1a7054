import type { oauth } from "@canopy/protos";
import type { z } from "zod";
import type * as schemas from "./schemas";

/** GitLab's Application entity (lib/api/entities/application.rb); `secret` only on create and renew. */
export function application(a: oauth.Application, secret?: string): z.infer<typeof schemas.Application> {
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
