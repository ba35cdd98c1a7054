import { timingSafeEqual } from "node:crypto";
import type { oauth } from "@canopy/protos";
import { refuse } from "../../domain/oauth/errors";
import { tokenDigests } from "../../domain/tokens";
import type { Deps } from "../../deps";
import { findApplicationByUid, moveSecretDigest, type ApplicationRow } from "../../store/oauth-applications";

const sameDigest = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Whether `secret` is the application's; one found under the previous key is moved to the current one. */
async function secretMatches(deps: Deps, secret: string, app: ApplicationRow): Promise<boolean> {
  const digests = tokenDigests(deps, secret);
  const matched = digests.findIndex((digest) => sameDigest(digest, app.secret_digest));
  if (matched > 0)
    await moveSecretDigest(deps.pool, app.id, app.secret_digest, digests[0]!).catch((err) =>
      deps.log.warn({ err, application_id: app.id }, "could not move a secret's digest to the current key"),
    );
  return matched >= 0;
}

/**
 * The application a token request comes from (Doorkeeper's `by_uid_and_secret`): a confidential
 * application must prove itself with its secret; a public one may send its client_id alone, but a
 * wrong secret fails it too. Undefined when no client_id was sent.
 */
export async function authenticateClient(
  deps: Deps,
  client: oauth.ClientCredentials | undefined,
): Promise<ApplicationRow | undefined> {
  if (!client?.clientId) {
    if (client?.clientSecret) refuse("invalid_client");
    return undefined;
  }
  const app = await findApplicationByUid(deps.pool, client.clientId);
  if (!app) return refuse("invalid_client");
  const secretGiven = client.clientSecret !== "";
  if (app.confidential && !secretGiven) return refuse("invalid_client");
  if (secretGiven && !(await secretMatches(deps, client.clientSecret, app))) {
    return refuse("invalid_client");
  }
  return app;
}

/** The client, which must be present. */
export async function requireClient(
  deps: Deps,
  client: oauth.ClientCredentials | undefined,
): Promise<ApplicationRow> {
  return (await authenticateClient(deps, client)) ?? refuse("invalid_client");
}

/**
 * Whether a request proved a client with its secret. Only such requests spend the client's rate-limit
 * budget at the gateway: anyone can name a client_id, so counting those would let anyone lock it out.
 */
export async function provesClient(
  deps: Deps,
  client: oauth.ClientCredentials | undefined,
): Promise<boolean> {
  if (!client?.clientId || !client.clientSecret) return false;
  const app = await findApplicationByUid(deps.pool, client.clientId);
  return Boolean(app && (await secretMatches(deps, client.clientSecret, app)));
}
