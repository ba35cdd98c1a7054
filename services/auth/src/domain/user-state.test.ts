import {
  decideStateAction,
  DORMANT_DAYS,
  isBlocked,
  isDormant,
  USER_STATES,
  type StateAction,
} from "./user-state";

const subject = (state: (typeof USER_STATES)[number], extra: { self?: boolean; dormant?: boolean } = {}) => ({
  state,
  self: extra.self ?? false,
  dormant: extra.dormant ?? true,
});

describe("isBlocked (User#blocked?)", () => {
  it("is true for blocked, ldap_blocked, pending approval and banned only", () => {
    expect(USER_STATES.filter(isBlocked)).toEqual([
      "blocked",
      "ldap_blocked",
      "blocked_pending_approval",
      "banned",
    ]);
  });
});

describe("decideStateAction", () => {
  it("never changes anything for an action whose rule refuses", () => {
    for (const action of [
      "block",
      "unblock",
      "ban",
      "unban",
      "deactivate",
      "activate",
      "approve",
      "reject",
    ] as StateAction[])
      for (const state of USER_STATES) {
        const d = decideStateAction(action, subject(state));
        if (d.kind === "change") expect(d.to).not.toBe(state);
      }
  });

  it("checks LDAP first, then self, when blocking", () => {
    expect(decideStateAction("block", subject("ldap_blocked", { self: true }))).toMatchObject({
      message: "403 Forbidden - LDAP blocked users cannot be modified by the API",
    });
    expect(decideStateAction("block", subject("blocked", { self: true }))).toMatchObject({
      message: "403 Forbidden - The API initiating user cannot be blocked by the API",
    });
  });

  it("answers an already deactivated user before any other deactivation rule", () => {
    expect(decideStateAction("deactivate", subject("deactivated", { dormant: false }))).toEqual({
      kind: "already",
    });
    expect(decideStateAction("deactivate", subject("active", { dormant: false }))).toEqual({
      kind: "refuse",
      status: 403,
      message: `The user you are trying to deactivate has been active in the past ${DORMANT_DAYS} days and cannot be deactivated`,
    });
  });

  it("names the state in ban and unban refusals", () => {
    expect(decideStateAction("ban", subject("blocked_pending_approval"))).toMatchObject({
      message: "You cannot ban blocked_pending_approval users.",
    });
    expect(decideStateAction("unban", subject("ldap_blocked"))).toMatchObject({
      message: "You cannot unban ldap_blocked users.",
    });
  });

  it("approves and rejects only users pending approval", () => {
    expect(decideStateAction("approve", subject("blocked_pending_approval"))).toEqual({
      kind: "change",
      to: "active",
    });
    expect(decideStateAction("reject", subject("blocked_pending_approval"))).toEqual({ kind: "remove" });
    for (const state of USER_STATES.filter((s) => s !== "blocked_pending_approval")) {
      expect(decideStateAction("approve", subject(state))).toMatchObject({ status: 409 });
      expect(decideStateAction("reject", subject(state))).toMatchObject({ status: 409 });
    }
  });
});

describe("isDormant (User#no_recent_activity?)", () => {
  const now = new Date("2026-11-26T12:00:00.000Z");
  const daysAgo = (n: number) => new Date(now.getTime() - n * 86_400_000);
  it("counts a user who was never active as dormant", () => {
    expect(isDormant(null, null, now)).toBe(true);
  });
  it("takes the later of the last activity day and the last sign-in", () => {
    expect(isDormant(daysAgo(100), daysAgo(89), now)).toBe(false);
    expect(isDormant(daysAgo(89), daysAgo(100), now)).toBe(false);
    expect(isDormant(daysAgo(91), daysAgo(120), now)).toBe(true);
    expect(isDormant("2026-08-01", null, now)).toBe(true);
    expect(isDormant("2026-11-01", null, now)).toBe(false);
  });
  it("counts exactly the period as dormant", () => {
    expect(isDormant(null, daysAgo(DORMANT_DAYS), now)).toBe(true);
  });
});
