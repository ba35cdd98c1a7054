import { Metadata } from "@grpc/grpc-js";
import { deadlineOf } from "@canopy/kit";

// The deadline a service holds a call to: grpc-timeout counted from the read, or the instant the
// gateway sent (canopy-deadline) when that is earlier and believable.

const callWith = (relative: number, sent?: string) => {
  const metadata = new Metadata();
  if (sent !== undefined) metadata.set("canopy-deadline", sent);
  return { getDeadline: () => relative, metadata };
};

describe("deadlineOf", () => {
  const now = Date.now();

  it("takes the sent instant when it is earlier than grpc-timeout counted from the read", () => {
    expect(deadlineOf(callWith(now + 5_000, String(now + 2_000)))).toBe(now + 2_000);
  });

  it("never extends grpc-timeout's deadline", () => {
    expect(deadlineOf(callWith(now + 1_000, String(now + 4_000)))).toBe(now + 1_000);
  });

  it.each([
    ["absent", undefined],
    ["not a number", "soon"],
    ["empty", ""],
    ["an hour off (a wrong clock)", String(now - 3_600_000)],
    ["a day ahead", String(now + 86_400_000)],
  ])("ignores a sent instant that is %s", (_, sent) => {
    expect(deadlineOf(callWith(now + 5_000, sent))).toBe(now + 5_000);
  });

  it("is Infinity for a call without any deadline", () => {
    expect(deadlineOf(callWith(Infinity))).toBe(Infinity);
  });
});
