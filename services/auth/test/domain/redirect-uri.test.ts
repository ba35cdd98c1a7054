import {
  isRegisteredRedirect,
  OOB_URI,
  redirectUriErrors,
  withParams,
} from "../../src/domain/oauth/redirect-uri";

describe("redirectUriErrors (Doorkeeper's messages)", () => {
  it.each([
    ["", "can't be blank"],
    ["/callback", "must be an absolute URI."],
    ["javascript:alert(1)", "is forbidden by the server."],
    ["https://app.example/cb#frag", "cannot contain a fragment."],
    ["localhost:3000", "must specify a scheme."],
    ["https://app.example/cb withspace^", "must be a valid URI."],
  ])("refuses %j: %s", (uri, message) => {
    expect(redirectUriErrors(uri)).toEqual([message]);
  });

  it("accepts several absolute URIs and the out-of-band URI", () => {
    expect(redirectUriErrors(`https://a.example/cb\nmyapp://cb ${OOB_URI}`)).toEqual([]);
  });
});

describe("isRegisteredRedirect", () => {
  it("matches exactly, never by prefix", () => {
    expect(isRegisteredRedirect("https://a.example/cb", "https://a.example/cb")).toBe(true);
    expect(isRegisteredRedirect("https://a.example/cb", "https://a.example/cb/evil")).toBe(false);
    expect(isRegisteredRedirect("https://a.example/cb", "https://a.example/cb?x=1")).toBe(false);
  });

  it("lets a loopback IP redirect use any port (RFC 8252 §7.3), and only a loopback one", () => {
    expect(isRegisteredRedirect("http://127.0.0.1/cb", "http://127.0.0.1:53124/cb")).toBe(true);
    expect(isRegisteredRedirect("http://[::1]/cb", "http://[::1]:8000/cb")).toBe(true);
    expect(isRegisteredRedirect("http://localhost/cb", "http://localhost:8000/cb")).toBe(false);
    expect(isRegisteredRedirect("http://127.0.0.1/cb", "http://127.0.0.1:53124/other")).toBe(false);
  });
});

describe("withParams", () => {
  it("keeps the URI's own query and adds non-empty parameters", () => {
    expect(withParams("https://a.example/cb?x=1", { code: "c", state: "" })).toBe(
      "https://a.example/cb?x=1&code=c",
    );
  });

  it("puts parameters in the fragment for the implicit grant", () => {
    expect(withParams("https://a.example/cb", { access_token: "t" }, true)).toBe(
      "https://a.example/cb#access_token=t",
    );
  });
});
