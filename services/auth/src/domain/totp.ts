import { randomBytes } from "node:crypto";
import { generateSecret, generateURI, verifySync } from "otplib";

/** Codes from the step before and after the current one are accepted too (clock drift), as GitLab does. */
const DRIFT_SECONDS = 30;
export const RECOVERY_CODE_COUNT = 10;

/** A new TOTP secret: 160 random bits in base32, what authenticator apps expect. */
export const newTotpSecret = () => generateSecret();

/** The otpauth:// URI the QR code carries: `Issuer:username`, SHA-1, 6 digits, 30 s (the app defaults). */
export const provisioningUri = (issuer: string, account: string, secret: string) =>
  generateURI({ issuer, label: account, secret });

export const looksLikeTotpCode = (code: string) => /^\d{6}$/.test(code);

/**
 * The 30-second step of a valid code, or undefined. Steps at or before `afterStep` (the last code
 * this user spent) are refused, so a code cannot be replayed within its window.
 */
export function totpStep(secret: string, code: string, afterStep: number | null): number | undefined {
  if (!looksLikeTotpCode(code)) return undefined;
  const result = verifySync({
    strategy: "totp",
    secret,
    token: code,
    epochTolerance: DRIFT_SECONDS,
    ...(afterStep === null ? {} : { afterTimeStep: afterStep }),
  });
  // The result type covers HOTP too; a TOTP answer carries its step.
  return result.valid && "timeStep" in result ? result.timeStep : undefined;
}

/** GitLab's recovery codes: ten of 16 hex characters (64 random bits each), shown once. */
export const newRecoveryCodes = () =>
  Array.from({ length: RECOVERY_CODE_COUNT }, () => randomBytes(8).toString("hex"));

/** What a user types may carry spaces or capitals; codes are compared in one form. */
export const normalizeCode = (code: string) => code.replace(/\s+/g, "").toLowerCase();
