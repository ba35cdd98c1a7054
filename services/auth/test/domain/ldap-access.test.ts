import { decideLdapAccess } from "../../src/domain/ldap-access";
import { USER_STATES } from "../../src/domain/user-state";

describe("decideLdapAccess (Gitlab::Auth::Ldap::Access#allowed?)", () => {
  it("lets a person found in the directory in, and brings back a user the directory had blocked", () => {
    expect(decideLdapAccess("ldap_blocked", "found", false)).toEqual({
      allowed: true,
      to: "active",
      reason: "is available again",
    });
    expect(decideLdapAccess("ldap_blocked", "found", true)).toEqual({
      allowed: true,
      to: "active",
      reason: "is not disabled anymore",
    });
    for (const state of USER_STATES.filter((s) => s !== "ldap_blocked"))
      expect(decideLdapAccess(state, "found", true)).toEqual({ allowed: true });
  });

  it("blocks an active or deactivated user whose person is gone or disabled in Active Directory", () => {
    for (const state of ["active", "deactivated"] as const) {
      expect(decideLdapAccess(state, "gone", false)).toEqual({
        allowed: false,
        to: "ldap_blocked",
        reason: "does not exist anymore",
      });
      expect(decideLdapAccess(state, "disabled", true)).toEqual({
        allowed: false,
        to: "ldap_blocked",
        reason: "is disabled in Active Directory",
      });
    }
  });

  it("never changes a user an administrator blocked, banned or has to approve, nor one already blocked", () => {
    for (const state of ["blocked", "banned", "blocked_pending_approval", "ldap_blocked"] as const)
      for (const answer of ["gone", "disabled"] as const)
        expect(decideLdapAccess(state, answer, true)).toEqual({ allowed: false });
  });
});
