import { randomBytes } from "node:crypto";
import { generateSync } from "otplib";
import { derivedKey, open, seal } from "@canopy/kit";
import { newRecoveryCodes, newTotpSecret, normalizeCode, provisioningUri, totpStep } from "./totp";

// Pure rules: no database, no network.
describe("totpStep", () => {
  const secret = newTotpSecret();

  it("accepts the current code and answers its 30-second step", () => {
    const before = Math.floor(Date.now() / 30_000);
    const step = totpStep(secret, generateSync({ secret }), null);
    // The step may have turned between the two readings of the clock.
    expect([before, Math.floor(Date.now() / 30_000)]).toContain(step);
  });

  it("accepts one step of drift either way, not two", () => {
    const now = Date.now() / 1000;
    expect(totpStep(secret, generateSync({ secret, epoch: now - 30 }), null)).toBeDefined();
    expect(totpStep(secret, generateSync({ secret, epoch: now + 30 }), null)).toBeDefined();
    expect(totpStep(secret, generateSync({ secret, epoch: now - 95 }), null)).toBeUndefined();
  });

  it("refuses a step at or before the last one spent (replay)", () => {
    const code = generateSync({ secret });
    const step = totpStep(secret, code, null)!;
    expect(totpStep(secret, code, step)).toBeUndefined();
    expect(totpStep(secret, code, step - 1)).toBe(step);
  });

  it("refuses what is not six digits, and another secret's code", () => {
    for (const code of ["", "12345", "1234567", "abcdef", " 123456"])
      expect(totpStep(secret, code, null)).toBeUndefined();
    expect(totpStep(secret, generateSync({ secret: newTotpSecret() }), null)).toBeUndefined();
  });
});

test("the otpauth URI names the issuer and account and carries the secret", () => {
  const uri = new URL(provisioningUri("canopy.test", "ann@example.com", "JBSWY3DPEHPK3PXP"));
  expect(uri.protocol).toBe("otpauth:");
  expect(decodeURIComponent(uri.pathname)).toContain("canopy.test:ann@example.com");
  expect(uri.searchParams.get("secret")).toBe("JBSWY3DPEHPK3PXP");
  expect(uri.searchParams.get("issuer")).toBe("canopy.test");
});

test("ten distinct recovery codes of 16 hex characters; typed codes are normalised", () => {
  const codes = newRecoveryCodes();
  expect(codes).toHaveLength(10);
  expect(new Set(codes).size).toBe(10);
  for (const code of codes) expect(code).toMatch(/^[0-9a-f]{16}$/);
  expect(normalizeCode(" ABCD ef01\t2345 6789 ")).toBe("abcdef0123456789");
});

describe("secret box", () => {
  const key = derivedKey(randomBytes(32), "totp-secret");

  it("opens what it sealed, and the sealed bytes do not contain the plaintext", () => {
    const sealed = seal(key, "JBSWY3DPEHPK3PXP", "user:1");
    expect(sealed.includes(Buffer.from("JBSWY3DPEHPK3PXP"))).toBe(false);
    expect(open(key, sealed, "user:1")).toBe("JBSWY3DPEHPK3PXP");
  });

  it("refuses another context, another key, or a changed byte", () => {
    const sealed = seal(key, "JBSWY3DPEHPK3PXP", "user:1");
    expect(() => open(key, sealed, "user:2")).toThrow();
    expect(() => open(derivedKey(randomBytes(32), "totp-secret"), sealed, "user:1")).toThrow();
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => open(key, tampered, "user:1")).toThrow();
  });

  it("derives different keys for different purposes", () => {
    const instance = randomBytes(32);
    expect(derivedKey(instance, "a").equals(derivedKey(instance, "b"))).toBe(false);
    expect(derivedKey(instance, "a").equals(derivedKey(instance, "a"))).toBe(true);
  });
});
