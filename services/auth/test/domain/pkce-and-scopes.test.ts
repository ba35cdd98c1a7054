import { createHash } from "node:crypto";
import { isValidVerifier, verifierMatches } from "../../src/domain/oauth/pkce";
import { effectiveScopes, parseScopes } from "../../src/domain/oauth/scopes";

const verifier = "a".repeat(43);
const s256 = createHash("sha256").update(verifier).digest("base64url");

describe("PKCE (RFC 7636)", () => {
  it("accepts verifiers of 43 to 128 unreserved characters only", () => {
    expect(isValidVerifier("a".repeat(42))).toBe(false);
    expect(isValidVerifier(verifier)).toBe(true);
    expect(isValidVerifier("a".repeat(128))).toBe(true);
    expect(isValidVerifier("a".repeat(129))).toBe(false);
    expect(isValidVerifier(`${"a".repeat(42)}+`)).toBe(false);
  });

  it("matches a verifier against its S256 or plain challenge, and nothing else", () => {
    expect(verifierMatches(verifier, s256, "S256")).toBe(true);
    expect(verifierMatches(verifier, verifier, "plain")).toBe(true);
    expect(verifierMatches(verifier, verifier, "S256")).toBe(false);
    expect(verifierMatches("b".repeat(43), s256, "S256")).toBe(false);
  });
});

describe("scopes", () => {
  it("splits on spaces, drops duplicates, and finds tabs and newlines malformed", () => {
    expect(parseScopes("api  read_user api")).toEqual(["api", "read_user"]);
    expect(parseScopes("api\tread_user")).toBeUndefined();
    expect(parseScopes("api\nread_user")).toBeUndefined();
  });

  it("gives the default api scope when none is asked for and the application has it", () => {
    expect(effectiveScopes("", ["api", "read_user"])).toEqual(["api"]);
    expect(effectiveScopes("", ["read_user"])).toBeUndefined();
  });

  it("refuses a scope the application was not registered with", () => {
    expect(effectiveScopes("read_user", ["read_user", "api"])).toEqual(["read_user"]);
    expect(effectiveScopes("sudo", ["api"])).toBeUndefined();
  });
});
