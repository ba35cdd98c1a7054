import { invalid, notFound, requireAdmin, requireSignedIn, withTransaction } from "@canopy/kit";
import type { common, oauth } from "@canopy/protos";
import { isServerScope } from "../../domain/oauth/scopes";
import { redirectUriErrors, splitRedirectUris } from "../../domain/oauth/redirect-uri";
import { tokenDigest } from "../../domain/tokens";
import type { Deps } from "../../deps";
import * as apps from "../../store/oauth-applications";
import { revokeTokensOfApplication } from "../../store/oauth-tokens";
import { announceRevoked } from "./revoke-tokens";
import { generateClientSecret, randomHex } from "./secrets";

/** Instance-wide applications belong to administrators; the others to their owner. */
function ownerFor(actor: common.Actor | undefined, instance: boolean): number | null {
  if (instance) {
    requireAdmin(actor);
    return null;
  }
  return requireSignedIn(actor).userId;
}

export async function createApplication(deps: Deps, req: oauth.CreateApplicationRequest) {
  const ownerId = ownerFor(req.actor, req.instance);
  const errors: Record<string, string[]> = {};
  if (!req.name.trim()) errors.name = ["can't be blank"];
  else if (req.name.length > 255) errors.name = ["is too long (maximum is 255 characters)"];
  const uriErrors = redirectUriErrors(req.redirectUri);
  if (uriErrors.length) errors.redirect_uri = uriErrors;
  // Without scopes an application could ask for any, so one is required (the API's rule, now the page's too).
  if (!req.scopes.length) errors.scopes = ["can't be blank"];
  else if (!req.scopes.every(isServerScope)) errors.scopes = ["doesn't match configured on the server."];
  if (Object.keys(errors).length) throw invalid(errors);
  const secret = generateClientSecret();
  const row = await apps.insertApplication(deps.pool, {
    name: req.name.trim(),
    uid: randomHex(),
    secret_digest: tokenDigest(deps.tokenKey, secret),
    redirect_uri: splitRedirectUris(req.redirectUri).join("\n"),
    scopes: [...new Set(req.scopes)],
    confidential: req.confidential,
    // Only administrators may let an application skip consent.
    trusted: req.trusted && Boolean(req.actor?.admin),
    owner_id: ownerId,
  });
  return { application: apps.toApplication(row), secret };
}

export async function listApplications(deps: Deps, req: oauth.ListApplicationsRequest) {
  const rows = await apps.listApplications(deps.pool, ownerFor(req.actor, req.instance));
  return { applications: rows.map(apps.toApplication) };
}

/** The application if it is the caller's (or an instance one for an admin); 404 otherwise. */
async function ownApplication(deps: Deps, actor: common.Actor | undefined, id: number, instance: boolean) {
  const ownerId = ownerFor(actor, instance);
  const row = await apps.findApplicationById(deps.pool, id);
  if (!row || row.owner_id !== ownerId) throw notFound("Application");
  return row;
}

/** Deleting an application deletes its codes and tokens; every gateway forgets the tokens at once. */
export async function deleteApplication(deps: Deps, req: oauth.DeleteApplicationRequest) {
  const row = await ownApplication(deps, req.actor, req.id, req.instance);
  await withTransaction(deps.pool, async (tx) => {
    await announceRevoked(tx, await revokeTokensOfApplication(tx, row.id));
    await apps.deleteApplication(tx, row.id);
  });
  return {};
}

export async function renewApplicationSecret(deps: Deps, req: oauth.RenewApplicationSecretRequest) {
  const row = await ownApplication(deps, req.actor, req.id, req.instance);
  const secret = generateClientSecret();
  const updated = await apps.setApplicationSecret(deps.pool, row.id, tokenDigest(deps.tokenKey, secret));
  if (!updated) throw notFound("Application");
  return { application: apps.toApplication(updated), secret };
}
