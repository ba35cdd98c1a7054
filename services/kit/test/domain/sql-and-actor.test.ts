import { status } from "@grpc/grpc-js";
import {
  containsPattern,
  isSelfOrAdmin,
  pageWindow,
  requireAdmin,
  requireSignedIn,
  Where,
} from "@canopy/kit";
import { common } from "@canopy/protos";

const actor = (overrides: Partial<common.Actor> = {}): common.Actor =>
  common.Actor.fromPartial({ userId: 7, username: "jane", ...overrides });

describe("Where", () => {
  it("numbers parameters in the order they are added and joins conditions with AND", () => {
    const w = new Where();
    w.and(`user_id = ${w.param(7)}`).and(`name ILIKE ${w.param("%x%")} OR note ILIKE ${w.param("%y%")}`);
    expect(w.sql).toBe("WHERE (user_id = $1) AND (name ILIKE $2 OR note ILIKE $3)");
    expect(w.params).toEqual([7, "%x%", "%y%"]);
  });

  it("is empty with no condition", () => {
    expect(new Where().sql).toBe("");
  });
});

describe("containsPattern", () => {
  it("escapes LIKE's wildcards and escape character so input matches literally", () => {
    expect(containsPattern("50%_off\\")).toBe("%50\\%\\_off\\\\%");
  });
});

describe("actor helpers", () => {
  it("refuses an absent or anonymous actor as UNAUTHENTICATED", () => {
    expect(() => requireSignedIn(undefined)).toThrow(
      expect.objectContaining({ code: status.UNAUTHENTICATED }),
    );
    expect(() => requireSignedIn(actor({ userId: 0 }))).toThrow(
      expect.objectContaining({ code: status.UNAUTHENTICATED }),
    );
  });

  it("refuses a non-administrator as PERMISSION_DENIED", () => {
    expect(() => requireAdmin(actor())).toThrow(expect.objectContaining({ code: status.PERMISSION_DENIED }));
    expect(requireAdmin(actor({ admin: true })).userId).toBe(7);
  });

  it("lets a user act on themself, and an administrator on anyone", () => {
    expect(isSelfOrAdmin(actor(), 7)).toBe(true);
    expect(isSelfOrAdmin(actor(), 8)).toBe(false);
    expect(isSelfOrAdmin(actor({ admin: true }), 8)).toBe(true);
    expect(isSelfOrAdmin(undefined, 8)).toBe(false);
  });
});

describe("pageWindow (GitLab's offset rules)", () => {
  it("treats page < 1 as 1 and caps per_page at 100", () => {
    expect(pageWindow({ page: 0, perPage: 500 })).toEqual({ page: 1, perPage: 100, limit: 100, offset: 0 });
    expect(pageWindow({ page: 3, perPage: 0 })).toEqual({ page: 3, perPage: 20, limit: 20, offset: 40 });
  });
});
