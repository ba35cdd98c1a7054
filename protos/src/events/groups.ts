import * as events from "../gen/canopy/groups/v1/events";

/** The groups context's events, under `canopy.groups.` (shape: the kit's `EventKind`, see auth.ts). */
const kind = <T>(
  leaf: string,
  type: string,
  codec: { encode(m: T): { finish(): Uint8Array }; decode(b: Uint8Array): T },
  users?: (payload: T) => number[],
) => ({
  subject: `canopy.groups.${leaf}`,
  type: `canopy.groups.v1.${type}`,
  codec,
  users,
});

/** The member a membership event is about: they read their new access at once (the kit's `EventKind.users`). */
const memberOf = (e: { member?: { userId: number } }) => (e.member ? [e.member.userId] : []);

export const GROUPS_EVENTS = {
  groupCreated: kind("group.created", "GroupCreated", events.GroupCreated),
  groupUpdated: kind("group.updated", "GroupUpdated", events.GroupUpdated),
  groupTransferred: kind("group.transferred", "GroupTransferred", events.GroupTransferred),
  groupMarkedForDeletion: kind(
    "group.marked_for_deletion",
    "GroupMarkedForDeletion",
    events.GroupMarkedForDeletion,
  ),
  groupRestored: kind("group.restored", "GroupRestored", events.GroupRestored),
  groupRemoved: kind("group.removed", "GroupRemoved", events.GroupRemoved),
  userNamespaceChanged: kind("user_namespace.changed", "UserNamespaceChanged", events.UserNamespaceChanged),
  userNamespaceRemoved: kind("user_namespace.removed", "UserNamespaceRemoved", events.UserNamespaceRemoved),
  memberAdded: kind("member.added", "MemberAdded", events.MemberAdded, memberOf),
  memberUpdated: kind("member.updated", "MemberUpdated", events.MemberUpdated, memberOf),
  memberRemoved: kind("member.removed", "MemberRemoved", events.MemberRemoved, memberOf),
  groupShared: kind("share.created", "GroupShared", events.GroupShared),
  groupUnshared: kind("share.removed", "GroupUnshared", events.GroupUnshared),
  customAttributeSet: kind("custom_attribute.set", "CustomAttributeSet", events.CustomAttributeSet),
  customAttributeRemoved: kind(
    "custom_attribute.removed",
    "CustomAttributeRemoved",
    events.CustomAttributeRemoved,
  ),
  pushRuleChanged: kind("push_rule.changed", "PushRuleChanged", events.PushRuleChanged),
  namespaceRepublished: kind("namespace.republished", "NamespaceRepublished", events.NamespaceRepublished),
  membershipRepublished: kind("member.republished", "MembershipRepublished", events.MembershipRepublished),
  groupShareRepublished: kind("share.republished", "GroupShareRepublished", events.GroupShareRepublished),
  /** The answer to an ldap DesiredLdapMembers command (not a hook event). */
  ldapMembersApplied: kind("ldap_members.applied", "LdapMembersApplied", events.LdapMembersApplied),
  /** Internal: the copies of other contexts' data changed (answer caches drop what they kept). */
  copiesChanged: kind("copies.changed", "GroupCopiesChanged", events.GroupCopiesChanged),
} as const;

/** Every subject the groups context publishes on. */
export const GROUPS_SUBJECTS = "canopy.groups.>";
