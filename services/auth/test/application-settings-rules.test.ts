import { allowlistErrors, validateSettingsChanges } from "../src/domain/application-settings";

// GitLab's model validations for application settings, as pure rules: no service needed.

test("a change within GitLab's limits has no errors", () => {
  expect(
    validateSettingsChanges({
      deletionAdjournedPeriod: 1,
      twoFactorGracePeriod: 0,
      defaultGroupVisibility: "public",
      outboundLocalRequestsWhitelist: { values: ["example.com:8080", "10.0.0.0/8", "[::1]:80"] },
    }),
  ).toEqual({});
  expect(validateSettingsChanges({ deletionAdjournedPeriod: 90 })).toEqual({});
});

test("every failing attribute is reported at once", () => {
  expect(
    validateSettingsChanges({
      deletionAdjournedPeriod: 2.5,
      defaultGroupVisibility: "Private",
      defaultProjectVisibility: "",
    }),
  ).toEqual({
    deletion_adjourned_period: ["must be an integer"],
    default_group_visibility: ["is not included in the list"],
    default_project_visibility: ["is not included in the list"],
  });
});

test("one allowlist can break several of its rules", () => {
  expect(allowlistErrors([...Array(1001).fill("a.example"), "ü".repeat(256), "<i>x</i>"])).toEqual([
    "is too long (maximum is 1000 entries)",
    "entries cannot be larger than 255 characters",
    "unicode domains should use IDNA encoding",
    "entries cannot contain HTML tags",
  ]);
  expect(allowlistErrors(["a < b", "1.2.3.4"])).toEqual([]);
});
