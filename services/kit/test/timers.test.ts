/**
 * A timer period Node cannot keep (past 24.8 days, or under 1 ms) would fire every millisecond
 * (TimeoutOverflowWarning): the service refuses to start instead.
 */
import pino from "pino";
import { startTimers } from "../src/service/timers";

const log = pino({ level: "silent" });
const noop = async () => undefined;

test("refuses periods Node's timers cannot keep, naming each", async () => {
  await expect(
    startTimers(
      [
        { name: "ok", everyMs: 60_000, run: noop },
        { name: "ldap sync poll", everyMs: 30 * 86_400_000, run: noop },
        { name: "zero", everyMs: 0, run: noop },
      ],
      log,
    ),
  ).rejects.toThrow(
    "timer periods must be 1 to 2147483647 ms (24.8 days): ldap sync poll 2592000000 ms, zero 0 ms",
  );
});

test("runs an atStart timer before it resolves and stops cleanly", async () => {
  let runs = 0;
  const stop = await startTimers(
    [{ name: "t", everyMs: 2_147_483_647, atStart: true, run: async () => void runs++ }],
    log,
  );
  expect(runs).toBe(1);
  await stop();
});
