// What the group webhook suites share: a receiver on 127.0.0.1 that records every delivery, and the
// application setting that lets hooks reach it (GitLab refuses local addresses unless
// allow_local_requests_from_web_hooks_and_services is on), turned on for a suite and put back after.
import { createHmac, timingSafeEqual } from "node:crypto";
import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { expectCall, unique } from "./api";
import type { Session } from "./session";

/** How long a delivery may take to arrive: the event crosses JetStream and a worker's poll. */
export const DELIVERY_MS = 60_000;

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
}

export class HookReceiver {
  readonly received: Delivery[] = [];
  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<HookReceiver> {
    const server = http.createServer();
    const receiver = new HookReceiver(server);
    server.on("request", (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(body);
        } catch {
          // not JSON: kept as text
        }
        receiver.received.push({ path: req.url!, headers: req.headers, body, json });
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return receiver;
  }

  get url() {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The first delivery at `path` that `matches`, waited for up to DELIVERY_MS. */
  async first(path: string, what: string, matches: (d: Delivery) => boolean): Promise<Delivery> {
    const deadline = Date.now() + DELIVERY_MS;
    for (;;) {
      const found = this.received.find((d) => d.path === path && matches(d));
      if (found) return found;
      if (Date.now() > deadline) {
        const got = this.received.filter((d) => d.path === path).map((d) => d.body);
        throw new Error(`${what} did not arrive at ${path} within ${DELIVERY_MS} ms; got ${got.join("\n")}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** How many requests at `path` carried each Idempotency-Key (one per delivery; a retry repeats it). */
  timesByKey(path: string): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const d of this.received.filter((r) => r.path === path)) {
      const key = String(d.headers["idempotency-key"]);
      counts[key] = (counts[key] ?? 0) + 1;
    }
    return counts;
  }

  stop() {
    return new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

/** README "Headers": the Standard Webhooks signature over `id.timestamp.body` with the hook's secret. */
export function signatureOk(d: Delivery, secret: string): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const signed = `${d.headers["webhook-id"]}.${d.headers["webhook-timestamp"]}.${d.body}`;
  const expected = Buffer.from(createHmac("sha256", key).update(signed).digest("base64"));
  return String(d.headers["webhook-signature"] ?? "")
    .split(" ")
    .some((s) => {
      const got = Buffer.from(s.replace(/^v1,/, ""));
      return got.length === expected.length && timingSafeEqual(got, expected);
    });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** GitLab's headers on every delivery, and the signature (README "Headers"). */
export function expectGitlabHeaders(
  d: Delivery,
  expected: { event: string; token: string; instance: string; secret: string },
) {
  expect(d.headers).toMatchObject({
    "content-type": "application/json",
    "x-gitlab-event": expected.event,
    "x-gitlab-token": expected.token,
    "x-gitlab-instance": expected.instance,
    "idempotency-key": expect.stringMatching(UUID),
    "x-gitlab-event-uuid": expect.stringMatching(UUID),
    "x-gitlab-webhook-uuid": expect.stringMatching(UUID),
    "user-agent": expect.stringMatching(/^GitLab\//),
    "webhook-id": d.headers["idempotency-key"],
  });
  const sentAt = Number(d.headers["webhook-timestamp"]) * 1000;
  expect(Math.abs(Date.now() - sentAt)).toBeLessThan(5 * 60_000);
  expect(signatureOk(d, expected.secret)).toBe(true);
}

const SETTING = "allow_local_requests_from_web_hooks_and_services";

/**
 * Turns the setting on as root and returns how to put it back. The hooks service reads settings from
 * their published snapshot, so a hook on the receiver is refused (422 Invalid url given) until every
 * replica has it: a probe hook is created until several in a row (round robin over the replicas) pass.
 */
export async function allowLocalHooks(session: Session, receiverUrl: string): Promise<() => Promise<void>> {
  const { url, rootToken: token } = session.stack;
  const before = (await expectCall(url, "/api/v4/application/settings", 200, { token })).json as Record<
    string,
    unknown
  >;
  const put = (value: unknown) =>
    expectCall(url, "/api/v4/application/settings", 200, {
      token,
      method: "PUT",
      body: { [SETTING]: value },
    });
  await put(true);
  const path = unique("hooks-probe-");
  const group = (
    await expectCall(url, "/api/v4/groups", 201, { token, method: "POST", body: { name: path, path } })
  ).json as { id: number };
  const deadline = Date.now() + DELIVERY_MS;
  for (let inARow = 0; inARow < 4 * session.stack.replicas;) {
    const probe = await fetch(`${url}/api/v4/groups/${group.id}/hooks`, {
      method: "POST",
      headers: { "PRIVATE-TOKEN": token, "Content-Type": "application/json" },
      body: JSON.stringify({ url: `${receiverUrl}/probe` }),
    });
    const hook = (await probe.json()) as { id?: number };
    if (hook.id) {
      inARow++;
      await expectCall(url, `/api/v4/groups/${group.id}/hooks/${hook.id}`, 204, { token, method: "DELETE" });
    } else inARow = 0;
    if (Date.now() > deadline) throw new Error(`${SETTING} not applied by the hooks service`);
  }
  await expectCall(url, `/api/v4/groups/${group.id}`, 202, { token, method: "DELETE" });
  return async () => void (await put(before[SETTING]));
}
