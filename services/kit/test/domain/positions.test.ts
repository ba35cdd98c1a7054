import {
  contextOfSubject,
  formatPositions,
  formatUsers,
  mergePositions,
  parsePositions,
  parseUsers,
} from "../../src/events/positions";

describe("event positions (read your writes)", () => {
  it("names an event's context by the second token of its logical subject", () => {
    expect(contextOfSubject("canopy.groups.member.added")).toBe("groups");
    expect(contextOfSubject("canopy.auth.user.>")).toBe("auth");
  });

  it("keeps the furthest position of each context", () => {
    const into = new Map([
      ["groups", 10],
      ["auth", 7],
    ]);
    mergePositions(
      into,
      new Map([
        ["groups", 4],
        ["auth", 9],
        ["projects", 3],
      ]),
    );
    expect(into).toEqual(
      new Map([
        ["groups", 10],
        ["auth", 9],
        ["projects", 3],
      ]),
    );
  });

  it("round-trips through a header, and reads anything malformed as nothing", () => {
    const positions = new Map([
      ["auth", 12],
      ["groups", 340],
    ]);
    expect(formatPositions(positions)).toBe("auth:12,groups:340");
    expect(parsePositions("auth:12,groups:340")).toEqual(positions);
    expect(parsePositions("groups:5,groups:9")).toEqual(new Map([["groups", 9]]));
    for (const bad of [
      "",
      "groups",
      "groups:",
      "groups:-1",
      "Groups:1",
      "groups:1;auth:2",
      "g:1".repeat(20),
      5,
    ]) {
      expect(parsePositions(bad)).toEqual(new Map());
    }
    expect(parsePositions(Array.from({ length: 17 }, (_, i) => `c${i}:1`).join(","))).toEqual(new Map());
    expect(formatPositions(new Map())).toBe("");
  });

  it("names at most 100 users, positive ids only", () => {
    expect(formatUsers(new Set([5, 0, 7]))).toBe("5,7");
    expect(parseUsers("5,x,7,0,-2")).toEqual([5, 7]);
    expect(parseUsers(formatUsers(new Set(Array.from({ length: 150 }, (_, i) => i + 1))))).toHaveLength(100);
    expect(parseUsers(undefined)).toEqual([]);
  });
});
