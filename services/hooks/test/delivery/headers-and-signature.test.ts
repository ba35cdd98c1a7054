import { createHmac, timingSafeEqual } from "node:crypto";
import {
  buildDeliveryHeaders,
  newSigningSecret,
  signWebhook,
  type DeliveryHeaderInput,
} from "../../src/delivery";

const input: DeliveryHeaderInput = {
  event: "Member Hook",
  gitlabVersion: "17.5.0",
  instanceUrl: "https://canopy.example.com/",
  idempotencyKey: "9f4a3c1e-0000-4000-8000-000000000001",
  eventUuid: "9f4a3c1e-0000-4000-8000-000000000002",
  webhookUuid: "9f4a3c1e-0000-4000-8000-000000000003",
};

describe("delivery headers", () => {
  it("are GitLab's, in GitLab's order, without a token header when the hook has none", () => {
    expect(Object.entries(buildDeliveryHeaders(input).sent)).toEqual([
      ["Content-Type", "application/json"],
      ["User-Agent", "GitLab/17.5.0"],
      ["Idempotency-Key", input.idempotencyKey],
      ["X-Gitlab-Event", "Member Hook"],
      ["X-Gitlab-Webhook-UUID", input.webhookUuid],
      ["X-Gitlab-Instance", "https://canopy.example.com"],
      ["X-Gitlab-Event-UUID", input.eventUuid],
    ]);
  });

  it("send the token without line breaks, and log it redacted", () => {
    const { sent, logged } = buildDeliveryHeaders({ ...input, token: "s3cr\r\net\n" });
    expect(sent["X-Gitlab-Token"]).toBe("s3cret");
    expect(logged["X-Gitlab-Token"]).toBe("[REDACTED]");
  });

  it("put custom headers under the built-in ones, whatever their case", () => {
    const customHeaders = {
      "x-gitlab-event": "Push Hook",
      "USER-AGENT": "evil",
      Authorization: "Bearer abc",
      "X-Team": "a",
    };
    const { sent, logged } = buildDeliveryHeaders({ ...input, token: "t", customHeaders });
    expect(sent).toMatchObject({
      "X-Gitlab-Event": "Member Hook",
      "User-Agent": "GitLab/17.5.0",
      Authorization: "Bearer abc",
      "X-Team": "a",
    });
    expect(Object.keys(sent).filter((k) => /^(x-gitlab-event|user-agent)$/i.test(k))).toHaveLength(2);
    expect(logged).toMatchObject({
      Authorization: "[REDACTED]",
      "X-Team": "[REDACTED]",
      "X-Gitlab-Token": "[REDACTED]",
    });
  });

  it("let a custom X-Gitlab-Token through when the hook has no token, as GitLab does", () => {
    const { sent } = buildDeliveryHeaders({ ...input, customHeaders: { "X-Gitlab-Token": "custom" } });
    expect(sent["X-Gitlab-Token"]).toBe("custom");
  });

  it("get a fresh webhook UUID per attempt and keep the idempotency key", () => {
    const a = buildDeliveryHeaders({ ...input, webhookUuid: undefined }).sent;
    const b = buildDeliveryHeaders({ ...input, webhookUuid: undefined }).sent;
    expect(a["X-Gitlab-Webhook-UUID"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(a["X-Gitlab-Webhook-UUID"]).not.toBe(b["X-Gitlab-Webhook-UUID"]);
    expect(a["Idempotency-Key"]).toBe(b["Idempotency-Key"]);
  });

  it("carry Standard Webhooks headers when the hook signs, keyed by the idempotency key", () => {
    const secret = newSigningSecret();
    const body = '{"event_name":"user_add_to_group"}';
    const { sent } = buildDeliveryHeaders({ ...input, signing: { secret, body, timestamp: 1700000000 } });
    expect(sent["webhook-id"]).toBe(input.idempotencyKey);
    expect(sent["webhook-timestamp"]).toBe("1700000000");
    expect(sent["webhook-signature"]).toBe(
      signWebhook({ secret, id: input.idempotencyKey, timestamp: 1700000000, body }),
    );
  });
});

describe("signatures", () => {
  it("match the Standard Webhooks reference vector", () => {
    const signature = signWebhook({
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
      timestamp: 1614265330,
      body: '{"test": 2432232314}',
    });
    expect(signature).toBe("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  });

  it("verify as a receiver would: HMAC-SHA256 of id.timestamp.body with the decoded secret", () => {
    const secret = newSigningSecret(24);
    const body = Buffer.from('{"a":"é"}');
    const header = signWebhook({ secret, id: "evt_1", timestamp: 42, body });
    const expected = createHmac("sha256", Buffer.from(secret.slice("whsec_".length), "base64"))
      .update(Buffer.concat([Buffer.from("evt_1.42."), body]))
      .digest();
    expect(timingSafeEqual(Buffer.from(header.slice(3), "base64"), expected)).toBe(true);
    expect(signWebhook({ secret, id: "evt_1", timestamp: 43, body })).not.toBe(header);
  });

  it("use secrets of whsec_ and 24 to 32 random bytes", () => {
    for (const bytes of [24, 32]) {
      const secret = newSigningSecret(bytes);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(bytes);
    }
    expect(newSigningSecret()).not.toBe(newSigningSecret());
    expect(() => newSigningSecret(16)).toThrow(RangeError);
  });
});
