// Ctrl-C on `npm start`: the launcher stops the services newest first, each shuts down cleanly, and
// the launcher exits 0. Runs last: nothing answers afterwards.
import { SERVICES } from "../support/manifest";
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

    it("SIGINT stops the launcher with exit code 0, after every replica of every service shut down", async () => {
      const { launcher, pids, replicas } = session.stack;
      const names = SERVICES.map((s) => s.name);
      expect(Object.keys(pids).sort()).toEqual([...names].sort());
      for (const name of names) expect(pids[name]).toHaveLength(replicas);

      expect(await session.stack.stop()).toEqual({ code: 0, signal: null });

      const said = (service: string) =>
        serviceLines(launcher.lines, service).filter((l) => l.includes('"msg":"shutting down"'));
      for (const name of names) expect(said(name)).toHaveLength(replicas);
      // Newest first: the gateways stop taking requests before the services behind them go away.
      const order = launcher.lines
        .filter((l) => l.includes('"msg":"shutting down"'))
        .map((l) => l.split(" ")[0]!.replace(/^\[|(#\d+)?\]$/g, ""));
      expect(order).toEqual([...names].reverse().flatMap((name) => Array(replicas).fill(name)));
      for (const pid of Object.values(pids).flat()) expect(alive(pid)).toBe(false);
    });

    it("no process logged an error, and nothing logged while stopping leaks a secret", () => {
      const errors = records(session).filter((r) => ["error", "fatal"].includes(String(r.record.level)));
      expect(errors).toEqual([]);
      expect(leaks(session.stack.allLines(), session.secrets.values)).toEqual([]);
    });
  });
}
