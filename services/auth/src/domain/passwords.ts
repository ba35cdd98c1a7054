import argon2 from "argon2";
import pLimit from "p-limit";
import { Counter } from "prom-client";
import { registry } from "@canopy/kit";

/**
 * argon2id hashing, at most two at a time: each one takes 64 MiB and a core for a while, so an
 * unbounded burst of sign-ins or user creations would exhaust memory. Callers queue instead.
 */
const slot = pLimit(2);

/**
 * Every argon2 verification, counted: sign-in must spend one whatever the account (unknown, locked,
 * blocked, wrong password), or its answer time tells them apart. Tests assert it through this.
 */
export const passwordVerifications = new Counter({
  name: "canopy_auth_password_verifications_total",
  help: "argon2 password verifications (real and dummy)",
  registers: [registry],
});

export const hashPassword = (password: string) =>
  slot(() => argon2.hash(password, { type: argon2.argon2id }));

export const passwordMatches = (hash: string, password: string) =>
  slot(() => {
    passwordVerifications.inc();
    return argon2.verify(hash, password);
  });

// Checked when the login is unknown, so a wrong username costs as long as a wrong password.
const DUMMY_HASH = hashPassword("canopy-timing-equaliser");

export async function spendVerification(password: string): Promise<false> {
  await passwordMatches(await DUMMY_HASH, password || "-");
  return false;
}
