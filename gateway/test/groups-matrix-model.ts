/**
 * The access model of the permission matrix, written once from the reference (groups-api.md §2):
 * effective access (§2.3), read_group (§2.4), the order of 401 / 404 / 403 (§1.3, §2.5), and the
 * base sets of the group lists (§4.1, §4.7, §4.8). The matrix derives every expected answer from
 * these rules and the world's memberships and links; no case has a hand-written status.
 */
import { VIS_LEVEL, type Caller, type WGroup, type World } from "./groups-matrix-world";

export interface Expect {
  status: number;
  /** Compared exactly when given (errors); successes are checked by status and by the list checks. */
  body?: unknown;
}

export const UNAUTHORIZED = { status: 401, body: { message: "401 Unauthorized" } };
export const FORBIDDEN = { status: 403, body: { message: "403 Forbidden" } };
export const BLOCKED = { status: 403, body: { message: "403 Forbidden - Your account has been blocked." } };
export const GROUP_NOT_FOUND = { status: 404, body: { message: "404 Group Not Found" } };
/** Push rules below Maintainer, share without admin_group_member (§2.5.4): never 403. */
export const BARE_NOT_FOUND = { status: 404, body: { message: "404 Not Found" } };
export const SHARE_NOT_FOUND = { status: 404, body: { message: "Not Found" } };
export const NAMESPACE_NOT_FOUND = { status: 404, body: { message: "404 Namespace Not Found" } };

export const OWNER = 50;
export const MAINTAINER = 40;

export const byId = (w: World, id: number) => w.groups.find((g) => g.id === id)!;

export function ancestorsOrSelf(w: World, g: WGroup): WGroup[] {
  const chain: WGroup[] = [];
  for (let at: WGroup | undefined = g; at; at = at.parentId ? byId(w, at.parentId) : undefined)
    chain.push(at);
  return chain;
}

export const isDescendantOrSelf = (w: World, g: WGroup, of: WGroup) =>
  ancestorsOrSelf(w, g).some((a) => a.id === of.id);

const signedIn = (c: Caller) => c.kind === "user" || c.kind === "admin";

/** Direct memberships of the caller (active users only: a blocked user counts for nothing). */
export function directOf(w: World, c: Caller): Map<number, number> {
  const out = new Map<number, number>();
  if (!signedIn(c)) return out;
  for (const m of w.memberships)
    if (m.userId === c.userId && m.level >= 10)
      out.set(m.groupId, Math.max(out.get(m.groupId) ?? 0, m.level));
  return out;
}

/** Authorized groups (§2.3): direct memberships, and groups shared with them capped at the link. */
export function authorizedOf(w: World, c: Caller): Map<number, number> {
  const direct = directOf(w, c);
  const out = new Map(direct);
  for (const l of w.links) {
    const mine = direct.get(l.withId);
    if (mine) out.set(l.sharedId, Math.max(out.get(l.sharedId) ?? 0, Math.min(mine, l.level)));
  }
  return out;
}

/** Effective access: administrators are Owners; otherwise the best authorization on the group or an ancestor. */
export function accessOf(w: World, c: Caller, g: WGroup): number {
  if (c.kind === "admin") return OWNER;
  const auth = authorizedOf(w, c);
  return Math.max(0, ...ancestorsOrSelf(w, g).map((a) => auth.get(a.id) ?? 0));
}

/** levels_for_user (§2.2): anonymous and external public only; users internal too; admins all. */
export function lowestVisible(c: Caller): number {
  if (c.kind === "admin") return 0;
  if (!signedIn(c) || c.external) return VIS_LEVEL.public;
  return VIS_LEVEL.internal;
}

/** read_group (§2.4): visibility reaches them, any access, access to something below, or admin. */
export function readable(w: World, c: Caller, g: WGroup): boolean {
  if (c.kind === "admin" || VIS_LEVEL[g.visibility] >= lowestVisible(c)) return true;
  if (accessOf(w, c, g) > 0) return true;
  const auth = authorizedOf(w, c);
  return w.groups.some((d) => d.id !== g.id && auth.has(d.id) && isDescendantOrSelf(w, d, g));
}

/**
 * GET /groups' base set (§4.1, first match): administrators all (all_available defaults to true);
 * anonymous the public groups; users their authorized groups with their ancestors and
 * descendants, and with all_available every group whose visibility reaches them.
 * (GitLab 13.x adds descendants of direct memberships only; Canopy folds those of shared groups in
 * too, as later GitLab's "authorized groups" do: groups the caller may read either way.)
 */
export function listedOf(w: World, c: Caller, allAvailable: boolean): Set<number> {
  if (c.kind === "admin") return new Set(w.groups.map((g) => g.id));
  const out = new Set<number>();
  if (signedIn(c)) {
    const auth = authorizedOf(w, c);
    for (const g of w.groups) {
      const reached = [...auth.keys()].some((id) => {
        const a = byId(w, id);
        return isDescendantOrSelf(w, g, a) || isDescendantOrSelf(w, a, g);
      });
      if (reached) out.add(g.id);
    }
  }
  if (!signedIn(c) || allAvailable)
    for (const g of w.groups) if (VIS_LEVEL[g.visibility] >= lowestVisible(c)) out.add(g.id);
  return out;
}

/** owned=true: the caller's direct Owner memberships (anonymous: none; §4.1 rule 1). */
export function ownedOf(w: World, c: Caller): Set<number> {
  return new Set([...directOf(w, c)].filter(([, level]) => level >= OWNER).map(([id]) => id));
}

/**
 * min_access_level: direct memberships at that level or above and all their descendants; inherited
 * and shared access do not qualify, administrators get only their own (§4.1 rule 2, §7.21).
 */
export function minAccessOf(w: World, c: Caller, level: number): Set<number> {
  const roots = [...directOf(w, c)].filter(([, l]) => l >= level).map(([id]) => byId(w, id));
  return new Set(w.groups.filter((g) => roots.some((r) => isDescendantOrSelf(w, g, r))).map((g) => g.id));
}

/** read_group_member: readable, except a private group where the caller has no access (§2.4). */
export const readsMembers = (w: World, c: Caller, g: WGroup) =>
  readable(w, c, g) && !(g.visibility === "private" && accessOf(w, c, g) === 0);

/**
 * GET /groups/:id/members/all: direct and ancestors' members, and members of groups the group or an
 * ancestor is shared with, except those of invited groups the caller cannot read (unless they
 * administer the group's members).
 */
export function allMembersOf(w: World, c: Caller, g: WGroup): Set<number> {
  const chain = new Set(ancestorsOrSelf(w, g).map((a) => a.id));
  const owner = accessOf(w, c, g) >= OWNER;
  const users = new Set<number>();
  for (const m of w.memberships) if (chain.has(m.groupId) && m.level >= 10) users.add(m.userId);
  for (const l of w.links) {
    if (!chain.has(l.sharedId) || !(owner || readable(w, c, byId(w, l.withId)))) continue;
    for (const m of w.memberships) if (m.groupId === l.withId && m.level >= 10) users.add(m.userId);
  }
  return users;
}

/** GET /namespaces (§ Namespaces API): the groups of direct memberships; administrators all. */
export function namespacesOf(w: World, c: Caller): Set<number> {
  if (c.kind === "admin") return new Set(w.groups.map((g) => g.id));
  return new Set(directOf(w, c).keys());
}

/** The first refusal that applies, in GitLab's order; undefined when the call goes through. */
export type Check = (w: World, c: Caller, g: WGroup) => Expect | undefined;

export const checks = {
  /** A blocked user's token is refused before anything else. */
  notBlocked: ((_w, c) => (c.kind === "blocked" ? BLOCKED : undefined)) as Check,
  signedIn: ((_w, c) => (c.kind === "anonymous" ? UNAUTHORIZED : undefined)) as Check,
  visible: ((w, c, g) => (readable(w, c, g) ? undefined : GROUP_NOT_FOUND)) as Check,
  readsMembers: ((w, c, g) => (readsMembers(w, c, g) ? undefined : FORBIDDEN)) as Check,
  admin: ((_w, c) => (c.kind === "admin" ? undefined : FORBIDDEN)) as Check,
  atLeast:
    (level: number, refusal: Expect): Check =>
    (w, c, g) =>
      accessOf(w, c, g) >= level ? undefined : refusal,
};

export function expectFor(w: World, c: Caller, g: WGroup, steps: Check[], success: Expect): Expect {
  for (const step of steps) {
    const refusal = step(w, c, g);
    if (refusal) return refusal;
  }
  return success;
}
