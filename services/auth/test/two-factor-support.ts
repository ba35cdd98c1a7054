import { generateSync } from "otplib";
import type { auth } from "@canopy/protos";
import { newUser, PASSWORD, type OAuthHarness } from "./oauth-support";

/**
 * A code for the step after the current one: enrolment has spent the current step, and the service
 * accepts one step of drift, so this one is fresh yet valid.
 */
export const nextCode = (secret: string) => generateSync({ secret, epoch: Date.now() / 1000 + 30 });
export const currentCode = (secret: string) => generateSync({ secret });

/** A new user with two-factor authentication enabled; its secret and recovery codes. */
export async function enrolledUser(h: OAuthHarness, overrides: auth.UserAttributes = {}) {
  const { user, actor } = await newUser(h, overrides);
  const { secret } = await h.auth.prepareTwoFactor({ actor });
  const enabled = await h.auth.enableTwoFactor({ actor, code: currentCode(secret), password: PASSWORD });
  if (enabled.recoveryCodes.length !== 10) throw new Error(`enrolment refused: ${enabled.refusal}`);
  return { user, actor, secret, recoveryCodes: enabled.recoveryCodes };
}
