import { isLive, nextStatus, statusErrors, type StatusFields } from "../../src/domain/user-status";

const now = new Date("2026-11-26T12:00:00.000Z");
const busy: StatusFields = { emoji: "coffee", message: "away", availability: "busy", clearStatusAt: null };

describe("nextStatus (Users::SetStatusService)", () => {
  it("removes the status when no emoji, message or availability is given", () => {
    expect(nextStatus(busy, { replace: true }, now)).toBeNull();
    expect(
      nextStatus(busy, { replace: true, emoji: " ", message: "", clearStatusAfter: "1_day" }, now),
    ).toBeNull();
  });

  it("PUT clears the message and clear time it is not given, keeps a blank availability", () => {
    expect(nextStatus(busy, { replace: true, emoji: "tada" }, now)).toEqual({
      emoji: "tada",
      message: null,
      availability: "busy",
      clearStatusAt: null,
    });
  });

  it("PATCH keeps what it is not given, but the emoji falls back to the default", () => {
    const later = { ...busy, clearStatusAt: new Date("2026-11-27T00:00:00.000Z") };
    expect(nextStatus(later, { replace: false, availability: "not_set" }, now)).toEqual({
      emoji: "speech_balloon",
      message: "away",
      availability: "not_set",
      clearStatusAt: later.clearStatusAt,
    });
  });

  it("turns clear_status_after into an instant from now", () => {
    expect(nextStatus(null, { replace: true, message: "m", clearStatusAfter: "30_minutes" }, now)).toEqual({
      emoji: "speech_balloon",
      message: "m",
      availability: "not_set",
      clearStatusAt: new Date("2026-11-26T12:30:00.000Z"),
    });
    expect(
      nextStatus(null, { replace: true, message: "m", clearStatusAfter: "30_days" }, now)?.clearStatusAt,
    ).toEqual(new Date("2026-12-26T12:00:00.000Z"));
  });
});

describe("statusErrors (UserStatus validations)", () => {
  it("knows GitLab's emoji names (gemoji's too) and counts characters, not UTF-16 units", () => {
    expect(statusErrors(busy)).toEqual({});
    expect(statusErrors({ ...busy, emoji: "+1" })).toEqual({});
    expect(statusErrors({ ...busy, emoji: "thumbs_up_medium_skin_tone" })).toEqual({});
    expect(statusErrors({ ...busy, emoji: ":coffee:" })).toEqual({ emoji: ["is not a valid emoji name"] });
    expect(statusErrors({ ...busy, message: "🚀".repeat(100) })).toEqual({});
    expect(statusErrors({ ...busy, message: "a".repeat(101) })).toEqual({
      message: ["is too long (maximum is 100 characters)"],
    });
  });
});

describe("isLive", () => {
  it("is false from the clear time on", () => {
    expect(isLive({ clearStatusAt: null }, now)).toBe(true);
    expect(isLive({ clearStatusAt: new Date(now.getTime() + 1) }, now)).toBe(true);
    expect(isLive({ clearStatusAt: now }, now)).toBe(false);
  });
});
