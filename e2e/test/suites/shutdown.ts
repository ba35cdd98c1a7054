// Ctrl-C on `npm start`: the launcher stops the services newest first, each shuts down cleanly, and
// the launcher exits 0. Runs last: nothing answers afterwards.
import type { Session } from "../support/session";
import { serviceLines } from "../support/stack";
import { leaks, records } from "./logs";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export function shutdown(session: Session) {
  describe("graceful shutdown", () => {
    it("a second gateway stops on SIGTERM with exit code 0", async () => {
      const extra = session.stack.extras[0];
      if (!extra) return; // the multi-gateway suites did not run
      expect(await extra.stop("SIGTERM")).toEqual({ code: 0, signal: null });
      expect(extra.lines.some((l) => l.includes('"msg":"shutting down"'))).toBe(true);
    });

    it("SIGINT stops the launcher with exit code 0, after both services shut down", async () => {
      const { launcher, pids } = session.stack;
      expect(Object.keys(pids).sort()).toEqual(["auth", "gateway"]);

      expect(await session.stack.stop()).toEqual({ code: 0, signal: null });

      const said = (service: string) =>
        serviceLines(launcher.lines, service).findIndex((l) => l.includes('"msg":"shutting down"'));
      expect(said("gateway")).toBeGreaterThanOrEqual(0);
      expect(said("auth")).toBeGreaterThanOrEqual(0);
      // Newest first: the gateway stops taking requests before auth goes away.
      const order = launcher.lines.filter((l) => l.includes('"msg":"shutting down"'));
      expect(order.map((l) => l.split(" ")[0])).toEqual(["[gateway]", "[auth]"]);
      for (const pid of Object.values(pids)) expect(alive(pid)).toBe(false);
    });

    it("no process logged an error, and nothing logged while stopping leaks a secret", () => {
      const errors = records(session).filter((r) => ["error", "fatal"].includes(String(r.record.level)));
      expect(errors).toEqual([]);
      expect(leaks(session.stack.allLines(), session.secrets.values)).toEqual([]);
    });
  });
}
