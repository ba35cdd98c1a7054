/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com): `webhook-id`,
 * `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256>` over "id.timestamp.body",
 * keyed with the base64-decoded part of a `whsec_` secret. GitLab itself sends no signature
 * (receivers compare X-Gitlab-Token); this is Canopy's addition for hooks that have a signing secret.
 */
import { createHmac, randomBytes } from "node:crypto";

const SECRET_PREFIX = "whsec_";

/** A fresh signing secret: `whsec_` and the base64 of `bytes` random bytes (24 to 32, default 32). */
export function newSigningSecret(bytes = 32): string {
  if (!Number.isInteger(bytes) || bytes < 24 || bytes > 32)
    throw new RangeError("a signing secret has 24 to 32 bytes");
  return SECRET_PREFIX + randomBytes(bytes).toString("base64");
}

/** The HMAC key inside a secret (with or without its `whsec_` prefix). */
export function signingKey(secret: string): Buffer {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, "base64");
  if (!key.length) throw new Error("signing secret is empty or not base64");
  return key;
}

export interface SignatureInput {
  secret: string;
  /** Stable per delivery (retries and resends keep it): the delivery's idempotency key. */
  id: string;
  /** Seconds since the epoch, of this attempt. */
  timestamp: number;
  /** Exactly the bytes sent. */
  body: string | Buffer;
}

/** `v1,<signature>` for one attempt. */
export function signWebhook({ secret, id, timestamp, body }: SignatureInput): string {
  const mac = createHmac("sha256", signingKey(secret))
    .update(`${id}.${timestamp}.`)
    .update(body)
    .digest("base64");
  return `v1,${mac}`;
}

/** The three Standard Webhooks headers for one attempt. */
export function signatureHeaders(input: SignatureInput): Record<string, string> {
  return {
    "webhook-id": input.id,
    "webhook-timestamp": String(input.timestamp),
    "webhook-signature": signWebhook(input),
  };
}
