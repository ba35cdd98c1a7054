import type { events } from "@canopy/protos";
import { snapshotChanged } from "../../src/domain/user-snapshot";

const snapshot: events.UserSnapshot = {
  userId: 7,
  username: "ada",
  name: "Ada",
  state: "active",
  admin: false,
  external: false,
  canCreateGroup: true,
  avatarUrl: "",
  email: "ada@example.com",
  identities: [],
  publicEmail: "",
};

describe("snapshotChanged", () => {
  it("is false for an equal snapshot", () => {
    expect(snapshotChanged(snapshot, { ...snapshot })).toBe(false);
  });

  it.each<[keyof events.UserSnapshot, unknown]>([
    ["username", "ada2"],
    ["name", "Ada L."],
    ["state", "blocked"],
    ["admin", true],
    ["external", true],
    ["canCreateGroup", false],
    ["avatarUrl", "https://example.com/a.png"],
    ["email", "ada@example.org"],
    ["publicEmail", "ada@example.com"],
  ])("is true when %s changes", (field, value) => {
    expect(snapshotChanged(snapshot, { ...snapshot, [field]: value })).toBe(true);
  });

  it("tells usernames apart by case (a rename from Ada to ada is a change)", () => {
    expect(snapshotChanged({ ...snapshot, username: "Ada" }, snapshot)).toBe(true);
  });
});
