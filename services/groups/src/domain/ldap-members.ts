import { MINIMAL_ACCESS, OWNER } from "@canopy/kit";

/**
 * GitLab's LDAP group sync rules for one group's members (ee/lib/ee/gitlab/auth/ldap/sync/group.rb),
 * without I/O: what to add, change and remove so that the group's LDAP members are the desired ones.
 *   - A desired user's level is raised to a higher level they hold in an ancestor (a subgroup member
 *     cannot sit below their inherited level).
 *   - A current member who is desired is flagged `ldap` and gets the desired level.
 *   - A current member who is not desired is removed when the directory manages them (flagged
 *     `ldap`, or holding an identity of one of the group's providers); anyone else is local, and
 *     never touched.
 *   - No change may leave the group and its ancestors without an Owner: such a change is skipped
 *     (the last Owner is kept, as GitLab keeps it with a warning).
 */
export interface CurrentMember {
  id: number;
  userId: number;
  accessLevel: number;
  ldap: boolean;
  /** An Owner membership that gives access (active user, not expired): the last-owner rule counts it. */
  activeOwner: boolean;
}

export type MemberChange =
  | { kind: "add"; userId: number; accessLevel: number }
  | { kind: "update"; member: CurrentMember; accessLevel: number; flag: boolean }
  | { kind: "flag"; member: CurrentMember }
  | { kind: "remove"; member: CurrentMember }
  | { kind: "keep-last-owner"; member: CurrentMember };

export function planLdapMembers(input: {
  current: CurrentMember[];
  desired: Map<number, number>;
  managed: Set<number>;
  /** The highest level each user holds in an ancestor of the group. */
  inherited: Map<number, number>;
  /** Owner memberships that give access, in the group and its ancestors. */
  owners: number;
  topLevel: boolean;
}): MemberChange[] {
  const changes: MemberChange[] = [];
  const level = (userId: number, desired: number) => {
    const raised = Math.max(desired, input.inherited.get(userId) ?? 0);
    // Minimal Access exists on top-level groups only: a subgroup member gets Guest at least.
    return raised === MINIMAL_ACCESS && !input.topLevel ? 10 : raised;
  };
  // Owners after the changes so far (new Owners count from the start): a change that would take the
  // last one away is refused.
  const currentIds = new Set(input.current.map((m) => m.userId));
  let owners =
    input.owners +
    [...input.desired].filter(([userId, l]) => !currentIds.has(userId) && level(userId, l) === OWNER).length;
  const seen = new Set<number>();
  for (const m of input.current) {
    seen.add(m.userId);
    const wanted = input.desired.get(m.userId);
    if (wanted !== undefined) {
      const target = level(m.userId, wanted);
      if (target === m.accessLevel) {
        if (!m.ldap) changes.push({ kind: "flag", member: m });
        continue;
      }
      if (m.activeOwner && target < OWNER && owners <= 1) {
        changes.push({ kind: "keep-last-owner", member: m });
        continue;
      }
      if (m.activeOwner && target < OWNER) owners--;
      if (m.accessLevel !== OWNER && target === OWNER) owners++;
      changes.push({ kind: "update", member: m, accessLevel: target, flag: !m.ldap });
    } else if (m.ldap || input.managed.has(m.userId)) {
      if (m.activeOwner && owners <= 1) {
        changes.push({ kind: "keep-last-owner", member: m });
        continue;
      }
      if (m.activeOwner) owners--;
      changes.push({ kind: "remove", member: m });
    }
  }
  for (const [userId, wanted] of input.desired)
    if (!seen.has(userId)) changes.push({ kind: "add", userId, accessLevel: level(userId, wanted) });
  return changes;
}
