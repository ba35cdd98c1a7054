// The sender against a real receiver on 127.0.0.1. Host names resolve through an injected
// resolver (the guard's), never through the system: a name reaching the receiver proves the
// connection was pinned to the checked address.
import { createServer } from "node:net";
import {
  REQUEST_BODY_LIMIT_BYTES,
  sendWebhook,
  type OutboundRequestSettings,
  type Resolver,
  type SendOutcome,
  type SendRequest,
} from "../../src/delivery";
import { selfSignedCertificate, startReceiver, type Receiver } from "./receiver";

const HOST = "hooks.example.test";
const settings: OutboundRequestSettings = {
  allowLocalRequestsFromWebHooksAndServices: false,
  outboundLocalRequestsWhitelist: ["127.0.0.1"],
  dnsRebindingProtectionEnabled: true,
  denyAllRequestsExceptAllowed: false,
};
const resolveHost: Resolver = async (name) => {
  if (name === HOST) return [{ address: "127.0.0.1", family: 4 }];
  if (name === "inside.example.test") return [{ address: "10.0.0.1", family: 4 }];
  throw new Error("ENOTFOUND");
};

let receiver: Receiver;
beforeAll(async () => (receiver = await startReceiver()));
afterAll(() => receiver.close());
beforeEach(() => {
  receiver.received.length = 0;
  receiver.handle((_req, res) => res.end("ok"));
});

const send = (path: string, extra: Partial<SendRequest> = {}) =>
  sendWebhook({
    url: `http://${HOST}:${receiver.port}${path}`,
    body: '{"event_name":"subgroup_create"}',
    headers: { "Content-Type": "application/json", "X-Gitlab-Event": "Subgroup Hook" },
    guard: { settings, resolve: resolveHost },
    ...extra,
  });

const errorOf = (outcome: SendOutcome) =>
  outcome.kind === "error" ? [outcome.failure, outcome.message] : outcome;

describe("a delivery", () => {
  it("POSTs the body and headers to the checked address, keeping the host name", async () => {
    receiver.handle((_req, res) => {
      res.writeHead(201, { "X-Request-Id": "abc", "Set-Cookie": ["a=1", "b=2"] });
      res.end("created");
    });
    const outcome = await send("/hook?x=1");
    expect(outcome).toMatchObject({
      kind: "response",
      status: 201,
      body: "created",
      headers: { "x-request-id": "abc", "set-cookie": "a=1, b=2" },
    });
    expect(outcome.durationMs).toBeGreaterThan(0);
    const [req] = receiver.received;
    expect(req).toMatchObject({ method: "POST", url: "/hook?x=1", body: '{"event_name":"subgroup_create"}' });
    expect(req!.headers).toMatchObject({
      host: `${HOST}:${receiver.port}`,
      "content-type": "application/json",
      "x-gitlab-event": "Subgroup Hook",
      "content-length": "32",
    });
  });

  it("never resolves the name a second time (DNS rebinding)", async () => {
    let calls = 0;
    const once: Resolver = async () => {
      calls += 1;
      if (calls > 1) return [{ address: "10.0.0.1", family: 4 }];
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const outcome = await send("/pinned", { guard: { settings, resolve: once } });
    expect(outcome).toMatchObject({ kind: "response", status: 200 });
    expect(calls).toBe(1);
  });

  it("is refused when the receiver is local and not allowlisted, and nothing is sent", async () => {
    const blocked = { ...settings, outboundLocalRequestsWhitelist: [] };
    const outcome = await send("/x", { guard: { settings: blocked, resolve: resolveHost } });
    expect(errorOf(outcome)).toEqual(["blocked", "URL is blocked: Requests to localhost are not allowed"]);
    expect(receiver.received).toHaveLength(0);
  });

  it("turns userinfo into Basic auth and takes it out of the URL", async () => {
    await send("/auth", { url: `http://j%40ne:p%3Ass@${HOST}:${receiver.port}/auth` });
    const [req] = receiver.received;
    expect(req!.headers.authorization).toBe(`Basic ${Buffer.from("j@ne:p:ss").toString("base64")}`);
    expect(req!.url).toBe("/auth");
  });

  it("keeps the first 8 KB of a long answer, ending it as GitLab's log does", async () => {
    receiver.handle((_req, res) => res.end("é".repeat(10_000)));
    const outcome = await send("/long");
    if (outcome.kind !== "response") throw new Error("expected a response");
    expect(Buffer.byteLength(outcome.body)).toBeLessThanOrEqual(8192);
    expect(outcome.body.endsWith("é…")).toBe(true);
  });
});

describe("redirects", () => {
  it("follows 302 as a GET without body, and 307 as the same POST, re-checking each hop", async () => {
    receiver.handle((req, res) => {
      if (req.url === "/a") res.writeHead(302, { Location: "/b" }).end();
      else if (req.url === "/b") res.writeHead(307, { Location: `http://${HOST}:${receiver.port}/c` }).end();
      else res.end("landed");
    });
    const outcome = await send("/a");
    expect(outcome).toMatchObject({ kind: "response", status: 200, body: "landed" });
    expect(receiver.received.map((r) => [r.method, r.url, r.body])).toEqual([
      ["POST", "/a", '{"event_name":"subgroup_create"}'],
      ["GET", "/b", ""],
      ["GET", "/c", ""],
    ]);
  });

  it("keeps the POST and its body on 308", async () => {
    receiver.handle((req, res) =>
      req.url === "/a" ? res.writeHead(308, { Location: "/c" }).end() : res.end("ok"),
    );
    await send("/a");
    expect(receiver.received.map((r) => [r.method, r.body.length > 0])).toEqual([
      ["POST", true],
      ["POST", true],
    ]);
  });

  it("refuses a hop to a blocked address", async () => {
    receiver.handle((_req, res) =>
      res.writeHead(302, { Location: "http://inside.example.test/admin" }).end(),
    );
    const outcome = await send("/a");
    expect(errorOf(outcome)).toEqual([
      "blocked",
      "URL is blocked: Requests to the local network are not allowed",
    ]);
    expect(receiver.received).toHaveLength(1);
  });

  it("gives up after five requests", async () => {
    receiver.handle((_req, res) => res.writeHead(301, { Location: "/again" }).end());
    expect(errorOf(await send("/a"))).toEqual(["too_many_redirects", "HTTP redirects too deep"]);
    expect(receiver.received).toHaveLength(5);
  });

  it("returns a redirect without Location as the answer", async () => {
    receiver.handle((_req, res) => res.writeHead(302).end());
    expect(await send("/a")).toMatchObject({ kind: "response", status: 302 });
  });
});

describe("failures", () => {
  it("times out after the limit with Ruby's read-timeout text", async () => {
    receiver.handle(() => undefined);
    const outcome = await send("/slow", { timeoutMs: 300 });
    expect(errorOf(outcome)).toEqual(["timeout", "Net::ReadTimeout with #<TCPSocket:(closed)>"]);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(outcome.durationMs).toBeLessThan(2000);
  });

  it("reports a refused connection", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const outcome = await send("/", { url: `http://${HOST}:${port}/` });
    expect(errorOf(outcome)).toEqual([
      "network",
      `Failed to open TCP connection to 127.0.0.1:${port} (Connection refused - connect(2) for "127.0.0.1" port ${port})`,
    ]);
  });

  it("sends nothing when the body is over 25 MB", async () => {
    const outcome = await send("/big", { body: Buffer.alloc(REQUEST_BODY_LIMIT_BYTES + 1, 32) });
    expect(outcome).toMatchObject({ kind: "error", failure: "request_too_large" });
    expect(receiver.received).toHaveLength(0);
  });

  it("stops reading an answer over the response limit", async () => {
    receiver.handle((_req, res) => res.end("x".repeat(5000)));
    const outcome = await send("/huge", { maxResponseBytes: 1000 });
    expect(outcome).toMatchObject({ kind: "error", failure: "response_too_large" });
  });

  it("refuses header values with line breaks before sending", async () => {
    const outcome = await send("/h", { headers: { "X-Custom": "a\r\nInjected: yes" } });
    expect(outcome).toMatchObject({ kind: "error", failure: "invalid_request" });
    expect(receiver.received).toHaveLength(0);
  });
});

describe("https", () => {
  const tls = selfSignedCertificate(HOST);
  let secure: Receiver;
  beforeAll(async () => (secure = await startReceiver(tls)));
  afterAll(() => secure.close());
  const sendTls = (extra: Partial<SendRequest>) =>
    sendWebhook({
      url: `https://${HOST}:${secure.port}/hook`,
      body: "{}",
      headers: {},
      guard: { settings, resolve: resolveHost },
      ...extra,
    });

  it("verifies the certificate against the host name and sends it as SNI", async () => {
    expect(await sendTls({ ca: tls.cert })).toMatchObject({ kind: "response", status: 200 });
    expect(secure.received.at(-1)?.servername).toBe(HOST);
  });

  it("fails on an untrusted certificate unless verification is off", async () => {
    const outcome = await sendTls({});
    expect(outcome).toMatchObject({ kind: "error", failure: "network" });
    expect(outcome.kind === "error" && outcome.message).toMatch(
      /^SSL_connect returned=1 errno=0 peeraddr=127\.0\.0\.1:\d+ .*certificate/,
    );
    expect(await sendTls({ verifyTls: false })).toMatchObject({ kind: "response", status: 200 });
  });
});
