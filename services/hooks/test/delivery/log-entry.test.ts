import { createHash } from "node:crypto";
import {
  buildLogEntry,
  interpolateUrl,
  isSuccessfulStatus,
  maskUrlCredentials,
  OVERSIZE_REQUEST_DATA,
  truncateBytes,
  type SendOutcome,
} from "../../src/delivery";

const answered = (status: number, headers: Record<string, string> = {}, body = ""): SendOutcome => ({
  kind: "response",
  status,
  headers,
  body,
  durationMs: 1234.5,
});

const base = {
  trigger: "member_hooks",
  urlTemplate: "https://user:pa55@hooks.example.com/{team}/in?t={secret}",
  interpolatedUrl: "https://user:pa55@hooks.example.com/core/in?t=XYZSECRET",
  urlVariables: { team: "core", secret: "XYZSECRET" },
  requestHeaders: { "X-Gitlab-Event": "Member Hook", "X-Gitlab-Token": "[REDACTED]" },
  requestData: { user_email: "jane@example.com", user_name: "Jane", nested: [{ email: "a@b.co" }, 3] },
};

describe("a delivery-log row", () => {
  it("stores the status as text, the duration in seconds, and the masked template URL", () => {
    const entry = buildLogEntry({ ...base, outcome: answered(200) });
    expect(entry).toMatchObject({
      trigger: "member_hooks",
      url: "https://*****:*****@hooks.example.com/{team}/in?t={secret}",
      responseStatus: "200",
      executionDuration: 1.2345,
      internalErrorMessage: null,
      urlHash: createHash("sha256").update(base.interpolatedUrl).digest("hex"),
    });
  });

  it("redacts email addresses in the request data, at any depth", () => {
    const entry = buildLogEntry({ ...base, outcome: answered(200) });
    expect(entry.requestData).toEqual({
      user_email: "[REDACTED]",
      user_name: "Jane",
      nested: [{ email: "[REDACTED]" }, 3],
    });
  });

  it("capitalizes response header names, keeps the first 50, cuts values at 1 KB and hides URL variables", () => {
    const headers: Record<string, string> = {
      "content-type": "text/plain",
      location: "https://x/?t=XYZSECRET",
    };
    for (let i = 0; i < 60; i++) headers[`x-extra-${i}`] = "v";
    headers["x-extra-0"] = "a".repeat(2000);
    const entry = buildLogEntry({ ...base, outcome: answered(302, headers, "moved") });
    expect(Object.keys(entry.responseHeaders)).toHaveLength(50);
    expect(entry.responseHeaders["Content-Type"]).toBe("text/plain");
    expect(entry.responseHeaders["Location"]).toBe("https://x/?t={secret}");
    expect(Buffer.byteLength(entry.responseHeaders["X-Extra-0"]!)).toBe(1024);
    expect(entry.responseBody).toBe("moved");
  });

  it("records a transport failure as an internal error", () => {
    const outcome: SendOutcome = {
      kind: "error",
      failure: "blocked",
      message: "URL is blocked: x",
      durationMs: 3,
    };
    const entry = buildLogEntry({ ...base, requestData: OVERSIZE_REQUEST_DATA, outcome });
    expect(entry).toMatchObject({
      responseStatus: "internal error",
      internalErrorMessage: "URL is blocked: x",
      responseHeaders: {},
      responseBody: "",
      requestData: { oversize: true },
    });
  });

  it("counts 2xx and 3xx as success", () => {
    expect(["200", "204", "302"].map(isSuccessfulStatus)).toEqual([true, true, true]);
    expect(["404", "500", "internal error"].map(isSuccessfulStatus)).toEqual([false, false, false]);
  });
});

describe("text and URL helpers", () => {
  it("truncate by bytes without splitting a character, as truncate_bytes does", () => {
    expect(truncateBytes("short", 10)).toBe("short");
    expect(truncateBytes("ééééé", 7)).toBe("éé…");
    expect(Buffer.byteLength(truncateBytes("x".repeat(9000), 8192))).toBe(8192);
  });

  it("fill URL templates, naming a missing key as GitLab does", () => {
    expect(interpolateUrl("https://h/{a}/{b_1}", { a: "x", b_1: "y" })).toEqual({
      ok: true,
      url: "https://h/x/y",
    });
    expect(interpolateUrl("https://h/{a}/{token}", { a: "x" })).toEqual({
      ok: false,
      message: "Invalid URL template. Missing key token",
    });
    expect(interpolateUrl("https://h/{not valid}", {})).toEqual({ ok: true, url: "https://h/{not valid}" });
  });

  it("mask credentials, user-only ones included", () => {
    expect(maskUrlCredentials("https://u:p@h/x")).toBe("https://*****:*****@h/x");
    expect(maskUrlCredentials("https://u@h/x")).toBe("https://*****@h/x");
    expect(maskUrlCredentials("https://h/x?a=b@c")).toBe("https://h/x?a=b@c");
  });
});
