// What the processes print: JSON lines with a request id, and never a secret, whatever the traffic.
import { randomBytes } from "node:crypto";
import { call, createToken, createUser, expectCall, within } from "../support/api";
import type { Session } from "../support/session";
import { SERVICES } from "../support/manifest";
import { serviceLines } from "../support/stack";

/** Every line of every process that contains one of the secrets, with the secret named by position. */
export function leaks(lines: string[], secrets: Iterable<string>): string[] {
  const found: string[] = [];
  for (const secret of secrets) {
    // The secret, and for a token its random part alone (a log that cut the prefix still leaks it).
    const needles = [secret, secret.replace(/^glpat-/, "")].filter((n) => n.length >= 12);
    for (const line of lines) if (needles.some((n) => line.includes(n))) found.push(line);
  }
  return found;
}

/** Each service's own lines as parsed JSON records (the launcher's lines are left out). */
export function records(session: Session): { service: string; record: Record<string, unknown> }[] {
  const { launcher, extras } = session.stack;
  const raw = [
    ...SERVICES.flatMap(({ name }) =>
      serviceLines(launcher.lines, name).map((line) => ({ service: name, line })),
    ),
    ...extras.flatMap((e) => e.lines.map((line) => ({ service: "gateway", line }))),
  ];
  return raw.map(({ service, line }) => {
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new Error(`a ${service} line is not JSON: ${line}`);
    }
    return { service, record: record as Record<string, unknown> };
  });
}

export function logs(session: Session) {
  describe("logs", () => {
    it("never contain the root token or password, a created token or a user's password", async () => {
      const { url, rootToken } = session.stack;
      const { secrets } = session;
      // The traffic most likely to leak, on top of what the other suites sent.
      await expectCall(url, `/api/v4/user?private_token=${rootToken}`, 200);
      await expectCall(url, `/api/v4/user?access_token=${rootToken}`, 200);
      const user = await createUser(url, rootToken, secrets);
      const { id, token } = await createToken(url, rootToken, user.id, secrets);
      await expectCall(url, `/api/v4/personal_access_tokens?private_token=${token}`, 200);
      // Refused requests log too: a token in both header and query, an unknown token, a bad password.
      expect((await call(url, `/api/v4/user?private_token=${token}`, { token: rootToken })).status).toBe(400);
      const unknown = secrets.add(`glpat-${randomBytes(24).toString("base64url")}`);
      expect((await call(url, `/api/v4/user?private_token=${unknown}`)).status).toBe(401);
      const tooShort = secrets.add(`s${randomBytes(2).toString("hex")}`);
      const badPassword = await call(url, `/api/v4/users/${user.id}`, {
        token: rootToken,
        method: "PUT",
        body: { password: tooShort },
      });
      expect(badPassword.status).toBe(400);
      const newPassword = secrets.add(`pw-${randomBytes(12).toString("base64url")}`);
      await expectCall(url, `/api/v4/users/${user.id}?password=${newPassword}`, 200, {
        token: rootToken,
        method: "PUT",
      });
      await expectCall(url, `/api/v4/personal_access_tokens/${id}?private_token=${rootToken}`, 204, {
        method: "DELETE",
      });
      await call(url, `/api/v4/user?private_token=${token}`);

      // Lines travel through pipes: wait until the last request's line is in.
      await within(2_000, async () =>
        records(session).some((r) => r.record.msg === "request" && r.record.status === 401),
      );
      expect(leaks(session.stack.allLines(), secrets.values)).toEqual([]);
    });

    it("are JSON objects, one per line, with service, level, time and msg", () => {
      const all = records(session);
      expect(all.length).toBeGreaterThan(10);
      for (const { service, record } of all) {
        expect(record).toMatchObject({
          service,
          level: expect.any(String),
          time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          msg: expect.any(String),
        });
      }
    });

    it("carry the request id on every request line, the caller's own when it sent one", async () => {
      const { url, rootToken } = session.stack;
      const requestId = `e2e-${randomBytes(8).toString("hex")}`;
      const reply = await expectCall(url, "/api/v4/user", 200, {
        token: rootToken,
        headers: { "X-Request-Id": requestId },
      });
      expect(reply.headers.get("x-request-id")).toBe(requestId);
      await within(2_000, async () => records(session).some((r) => r.record.request_id === requestId));
      const mine = records(session).filter((r) => r.record.request_id === requestId);
      expect(mine.map((r) => r.record)).toContainEqual(
        expect.objectContaining({ msg: "request", method: "GET", path: "/api/v4/user", status: 200 }),
      );
      const requestLines = records(session).filter((r) => r.record.msg === "request");
      expect(requestLines.length).toBeGreaterThan(20);
      for (const { record } of requestLines) expect(record.request_id).toEqual(expect.any(String));
    });
  });
}
