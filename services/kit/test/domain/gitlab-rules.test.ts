import {
  ACCESS_LEVEL_NAMES,
  ACCESS_LEVELS,
  customAttributeErrors,
  expiresAtErrors,
  firstFullMessage,
  inheritedLevelErrors,
  CUSTOM_ATTRIBUTE_KEY_MAX,
  CUSTOM_ATTRIBUTE_VALUE_MAX,
  isVisibilityName,
  lowestVisibleLevel,
  PROJECT_WILDCARD_ROUTES,
  searchTerms,
  squish,
  utcToday,
  visibilityLevelOf,
  visibilityNameOf,
} from "@canopy/kit";

// GitLab's own rules that the groups and projects services both follow (the kit's gitlab/).

describe("searchTerms (GitLab's Gitlab::SQL::Pattern)", () => {
  it.each([
    ["", undefined],
    ["   ", undefined],
    ["foo", { words: ["foo"] }],
    ["  foo   bar  ", { words: ["foo", "bar"] }],
    ["foo ab", { words: ["foo"] }],
    ["ab", { exact: "ab" }],
    ["a  b", { exact: "a b" }],
    ['"foo bar" baz', { words: ["baz", "foo bar"] }],
    ['x"foo bar"', { words: ['x"foo', 'bar"'] }],
    ['"ab"', { exact: '"ab"' }],
    ["ééé", { words: ["ééé"] }],
  ])("%j → %j", (query, expected) => {
    expect(searchTerms(query)).toEqual(expected);
  });

  it("squishes like Ruby", () => {
    expect(squish(" a \t\n b ")).toBe("a b");
  });
});

describe("visibility levels (Gitlab::VisibilityLevel)", () => {
  it("name levels and back, a level between two names being the lower one", () => {
    expect(["private", "internal", "public"].map((n) => isVisibilityName(n) && visibilityLevelOf(n))).toEqual(
      [0, 10, 20],
    );
    expect([0, 5, 10, 19, 20].map(visibilityNameOf)).toEqual([
      "private",
      "private",
      "internal",
      "internal",
      "public",
    ]);
    expect(isVisibilityName("secret")).toBe(false);
  });

  it("reach anonymous and external users at public, other users at internal, administrators at private", () => {
    const viewer = { userId: 7, admin: false, external: false };
    expect(lowestVisibleLevel({ ...viewer, userId: 0 })).toBe(20);
    expect(lowestVisibleLevel({ ...viewer, external: true })).toBe(20);
    expect(lowestVisibleLevel(viewer)).toBe(10);
    expect(lowestVisibleLevel({ ...viewer, admin: true, external: true })).toBe(0);
  });
});

describe("customAttributeErrors", () => {
  it("accept a key and value within the limits", () => {
    expect(customAttributeErrors("k", "v")).toEqual({});
    expect(
      customAttributeErrors("k".repeat(CUSTOM_ATTRIBUTE_KEY_MAX), "v".repeat(CUSTOM_ATTRIBUTE_VALUE_MAX)),
    ).toEqual({});
  });

  it("answer Rails' messages keyed by attribute", () => {
    expect(customAttributeErrors(" ", "")).toEqual({ key: ["can't be blank"], value: ["can't be blank"] });
    expect(customAttributeErrors("k".repeat(256), "v\u0000")).toEqual({
      key: ["is too long (maximum is 255 characters)"],
      value: ["is invalid"],
    });
    expect(customAttributeErrors("k", "v".repeat(10_001))).toEqual({
      value: ["is too long (maximum is 10000 characters)"],
    });
  });
});

describe("access levels (Gitlab::Access)", () => {
  it("are GitLab's numbers, each a member may hold named as GitLab prints it", () => {
    expect(ACCESS_LEVELS).toEqual([10, 20, 30, 40, 50]);
    expect(ACCESS_LEVELS.map((level) => ACCESS_LEVEL_NAMES[level])).toEqual([
      "Guest",
      "Reporter",
      "Developer",
      "Maintainer",
      "Owner",
    ]);
  });
});

describe("member rules of every source (GitLab's Member model)", () => {
  it("refuses past dates but not today", () => {
    expect(expiresAtErrors("2024-05-31", "2024-06-01")).toEqual(["cannot be a date in the past"]);
    expect(expiresAtErrors("2024-06-01", "2024-06-01")).toEqual([]);
    expect(expiresAtErrors(undefined, "2024-06-01")).toEqual([]);
  });

  it("refuses a level below the user's inherited membership, naming its role and group", () => {
    expect(inheritedLevelErrors(20, { accessLevel: 40, groupName: "Top" })).toEqual([
      "should be greater than or equal to Maintainer inherited membership from group Top",
    ]);
    expect(inheritedLevelErrors(40, { accessLevel: 40, groupName: "Top" })).toEqual([]);
    expect(inheritedLevelErrors(10, undefined)).toEqual([]);
  });

  it("says today in UTC", () => {
    expect(utcToday(new Date("2024-06-01T23:30:00-05:00"))).toBe("2024-06-02");
  });
});

describe("model errors (ActiveModel::Errors)", () => {
  it("give the first attribute's first message after its human name, as full_messages.first", () => {
    expect(firstFullMessage({ access_level: ["is not included in the list", "x"], expires_at: ["y"] })).toBe(
      "Access level is not included in the list",
    );
    expect(firstFullMessage({})).toBeUndefined();
  });
});

describe("reserved paths below a namespace", () => {
  it("are GitLab's project wildcard routes", () => {
    expect(PROJECT_WILDCARD_ROUTES.has("-")).toBe(true);
    expect(PROJECT_WILDCARD_ROUTES.has("tree")).toBe(true);
    expect(PROJECT_WILDCARD_ROUTES.has("admin")).toBe(false);
  });
});
