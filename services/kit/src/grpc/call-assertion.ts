import { createHash, sign, verify, type KeyObject } from "node:crypto";

/**
 * A service must never believe the `actor` inside a request just because the request reached its
 * port: anyone who can connect could claim to be an administrator. So the gateway signs every call
 * with an Ed25519 key only it holds, and each service checks the signature with the public half
 * (no service can forge the gateway). The assertion binds the method path, a short lifetime and the
 * SHA-256 of the serialized request, so it cannot be replayed on another method, kept for later, or
 * moved onto a request carrying another actor.
 *
 * Format: `v1.<base64url(JSON claims)>.<base64url(Ed25519 signature of "v1.<claims>")>`.
 */

/** gRPC metadata key that carries the assertion. */
export const CALL_ASSERTION_HEADER = "canopy-call-assertion";

const VERSION = "v1";
/** An assertion lives this long; the call it signs is being sent right now. */
const LIFETIME_SECONDS = 60;
/** Clocks of two machines may disagree by this much. */
const CLOCK_SKEW_SECONDS = 10;

interface Claims {
  /** gRPC method path, e.g. `/canopy.auth.v1.AuthService/GetUser`. */
  m: string;
  /** base64url SHA-256 of the serialized request message. */
  h: string;
  iat: number;
  exp: number;
}

/** SHA-256 of a serialized request, as the assertion carries it. */
export const requestDigest = (bytes: Buffer) => createHash("sha256").update(bytes).digest("base64url");

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Signs calls; only the gateway holds one. */
export class CallSigner {
  constructor(private readonly privateKey: KeyObject) {}

  /** The assertion for one call of `method` with these request bytes. */
  sign(method: string, requestBytes: Buffer, now = nowSeconds()): string {
    const claims: Claims = {
      m: method,
      h: requestDigest(requestBytes),
      iat: now,
      exp: now + LIFETIME_SECONDS,
    };
    const signed = `${VERSION}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`;
    return `${signed}.${sign(null, Buffer.from(signed), this.privateKey).toString("base64url")}`;
  }
}

/** Why an assertion was refused; for logs only, never for the caller. */
export type AssertionFault =
  "missing" | "malformed" | "bad_signature" | "wrong_method" | "wrong_request" | "expired";

/** Checks assertions with the gateway's public key. */
export class CallVerifier {
  constructor(private readonly publicKey: KeyObject) {}

  /** Null when `assertion` is the gateway's for this method and these request bytes, now. */
  check(
    assertion: string | undefined,
    method: string,
    digest: string | undefined,
    now = nowSeconds(),
  ): AssertionFault | null {
    if (!assertion) return "missing";
    const parts = assertion.split(".");
    if (parts.length !== 3 || parts[0] !== VERSION) return "malformed";
    const [version, body, signature] = parts as [string, string, string];
    const signed = Buffer.from(`${version}.${body}`);
    if (!verify(null, signed, this.publicKey, Buffer.from(signature, "base64url"))) return "bad_signature";
    const claims = parseClaims(body);
    if (!claims) return "malformed";
    if (claims.m !== method) return "wrong_method";
    if (!digest || claims.h !== digest) return "wrong_request";
    const fresh =
      claims.iat - CLOCK_SKEW_SECONDS <= now &&
      now <= claims.exp + CLOCK_SKEW_SECONDS &&
      claims.exp - claims.iat <= LIFETIME_SECONDS;
    return fresh ? null : "expired";
  }
}

function parseClaims(body: string): Claims | null {
  try {
    const c = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Partial<Claims>;
    const valid =
      typeof c.m === "string" &&
      typeof c.h === "string" &&
      Number.isInteger(c.iat) &&
      Number.isInteger(c.exp);
    return valid ? (c as Claims) : null;
  } catch {
    return null;
  }
}
