// The "done when" check of the foundation: root's token answers /api/v4/user, health answers.
import { randomBytes } from "node:crypto";
import http from "node:http";
import { call, expectCall, within } from "../support/api";
import type { Session } from "../support/session";

/** A GET on a connection of its own (no keep-alive), so the launcher's proxy picks a gateway anew. */
function getOnNewConnection(url: string, requestId: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent: false, headers: { "X-Request-Id": requestId } }, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode ?? 0));
    });
    request.on("error", reject);
  });
}

export function doneWhen(session: Session) {
  describe("done when: the stack answers as GitLab does", () => {
    it("prints where it is ready, with the external URL", () => {
      const { launcher, url } = session.stack;
      expect(launcher.lines).toContain(`Canopy is ready at ${url}`);
    });

    it("GET /api/v4/user with PRIVATE-TOKEN answers root as application/json", async () => {
      const { url, rootToken } = session.stack;
      const reply = await expectCall(url, "/api/v4/user", 200, { token: rootToken });
      expect(reply.headers.get("content-type")).toBe("application/json");
      expect(reply.json).toMatchObject({
        id: expect.any(Number),
        username: "root",
        is_admin: true,
        email: expect.stringMatching(/^[^@\s]+@[^@\s]+$/),
        state: "active",
        web_url: `${url}/root`,
      });
      expect(reply.headers.get("x-request-id")).toMatch(/^[A-Za-z0-9._-]+$/);
    });

    it("takes the same token as Authorization: Bearer", async () => {
      const { url, rootToken } = session.stack;
      const reply = await expectCall(url, "/api/v4/user", 200, {
        headers: { Authorization: `Bearer ${rootToken}` },
      });
      expect(reply.json).toMatchObject({ username: "root" });
    });

    it("refuses an unknown token and a missing one with 401", async () => {
      const { url } = session.stack;
      const unknown = await call(url, "/api/v4/user", { token: "glpat-thisisnotatokenthatexists00" });
      expect(unknown.status).toBe(401);
      expect(unknown.json).toEqual({ message: "401 Unauthorized" });
      const none = await call(url, "/api/v4/user");
      expect(none.status).toBe(401);
      expect(none.json).toEqual({ message: "401 Unauthorized" });
    });

    it("answers /-/health, /-/liveness and /-/readiness on the gateway", async () => {
      const { url } = session.stack;
      const health = await expectCall(url, "/-/health", 200);
      expect(health.text).toBe("GitLab OK");
      const liveness = await expectCall(url, "/-/liveness", 200);
      expect(liveness.json).toEqual({ status: "ok" });
      const readiness = await expectCall(url, "/-/readiness", 200);
      expect(readiness.json).toMatchObject({ status: "ok", failed: [] });
    });

    it("spreads new connections over every gateway replica behind the one URL", async () => {
      const { url, launcher, replicas } = session.stack;
      const prefix = `spread-${randomBytes(4).toString("hex")}`;
      for (let i = 0; i < 2 * replicas; i++) {
        expect(await getOnNewConnection(`${url}/-/liveness`, `${prefix}-${i}`)).toBe(200);
      }
      const tags = () =>
        new Set(
          launcher.lines.filter((l) => l.includes(`"request_id":"${prefix}-`)).map((l) => l.split(" ")[0]),
        );
      const expected =
        replicas === 1 ? ["[gateway]"] : Array.from({ length: replicas }, (_, i) => `[gateway#${i + 1}]`);
      // Lines travel through pipes: wait until every request's line is in.
      await within(5_000, async () => tags().size >= expected.length);
      expect([...tags()].sort()).toEqual(expected);
    });

    it("answers readiness and metrics on every process's health port", async () => {
      const { healthPorts } = session.stack;
      for (const port of Object.values(healthPorts).flat()) {
        const base = `http://127.0.0.1:${port}`;
        expect((await expectCall(base, "/-/readiness", 200)).json).toMatchObject({ status: "ok" });
        expect((await expectCall(base, "/metrics", 200)).text).toContain("process_resident_memory_bytes");
      }
    });
  });
}
