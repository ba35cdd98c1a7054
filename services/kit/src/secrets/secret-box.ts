import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * A key of its own for each purpose, derived (HKDF-SHA256) from the instance key, so the key that
 * hashes tokens never encrypts anything directly and a new purpose needs no new configuration.
 */
export const derivedKey = (instanceKey: Buffer, purpose: string) =>
  Buffer.from(hkdfSync("sha256", instanceKey, Buffer.alloc(0), `canopy:${purpose}`, 32));

/**
 * AES-256-GCM: iv ‖ tag ‖ ciphertext. `context` (e.g. the user id) is authenticated with it, so a
 * sealed value copied onto another row does not open there.
 */
export function seal(key: Buffer, plaintext: string, context: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(context));
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), body]);
}

/** The plaintext; throws when the value was tampered with or sealed under another key or context. */
export function open(key: Buffer, sealed: Buffer, context: string): string {
  const iv = sealed.subarray(0, IV_BYTES);
  const tag = sealed.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, iv).setAAD(Buffer.from(context));
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
    "utf8",
  );
}
