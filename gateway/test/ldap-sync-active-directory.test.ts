/**
 * LDAP group sync with `active_directory: true` end to end against an Active Directory-like slapd
 * (kit/testing/slapd-ad.ts: AD's `group` and `user` classes, `sAMAccountName`, and `memberOf` kept
 * by the server as AD keeps it). Reference §3.5: nested groups are found under group_base with
 * `(&(objectClass=group)(memberOf=<group dn>))`, recursively, each once; group DNs are not members;
 * only DNs under `base` count. One slapd, three servers of CANOPY_LDAP_SERVERS on it: `main` (AD,
 * base the whole domain, so group DNs are under it too), `staff` (AD, base one unit) and `plain`
 * (the same directory read as OpenLDAP).
 */
import { normalizeDn } from "@canopy/kit";
import {
  defaultPassword,
  groupDn,
  ldapServersEnv,
  personDn,
  startSlapd,
  unique,
  waitFor,
  type Slapd,
} from "@canopy/kit/testing";
import { signedInUser, startStack, type SignedIn, type Stack } from "./support";
import {
  copiedMembership,
  directMembers,
  ldapUser,
  link,
  newGroup,
  syncFinished,
  syncNow,
} from "./ldap-support";

const DEVELOPER = 30;
const MAINTAINER = 40;
const OWNER = 50;

let slapd: Slapd;
let stack: Stack;
let owner: SignedIn;
const servers = () =>
  ldapServersEnv({
    main: slapd.serverConfig({ attributes: { username: "sAMAccountName" }, lowercase_usernames: true }),
    staff: slapd.serverConfig({ label: "Staff", base: `ou=staff,${slapd.peopleBase}` }),
    plain: slapd.serverConfig({ label: "Plain", active_directory: false, uid: "uid" }),
  });

beforeAll(async () => {
  slapd = await startSlapd({ activeDirectory: true });
  const env = { CANOPY_LDAP_SERVERS: servers() };
  stack = await startStack({
    env,
    ldap: { ...env, CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0", CANOPY_LDAP_SYNC_POLL_MS: "100" },
  });
  owner = await signedInUser(stack);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await slapd?.close();
});

interface Person {
  uid: string;
  dn: string;
}

/** New directory people (fresh uids) in the unit `ou` under ou=people (none: ou=people itself). */
async function people(n: number, ou?: string): Promise<Person[]> {
  const uids = Array.from({ length: n }, () => unique("p").toLowerCase());
  await slapd.addPeople(uids.map((uid) => ({ uid, ou })));
  return uids.map((uid) => ({ uid, dn: personDn(uid, ou) }));
}

/**
 * AD groups engineering ⊃ backend ⊃ db ⊃ engineering (a loop), fresh cns; `direct` people of each.
 * db is made first: an AD group's members must exist, so the loop is closed last.
 */
async function nestedGroups(direct: { engineering: Person[]; backend: Person[]; db: Person[] }) {
  const cn = { engineering: unique("eng"), backend: unique("backend"), db: unique("db") };
  const dns = (ps: Person[]) => ps.map((p) => p.dn);
  await slapd.addGroup({ cn: cn.db, kind: "group", members: dns(direct.db) });
  await slapd.addGroup({ cn: cn.backend, kind: "group", members: [...dns(direct.backend), groupDn(cn.db)] });
  const engineering = [...dns(direct.engineering), groupDn(cn.backend)];
  await slapd.addGroup({ cn: cn.engineering, kind: "group", members: engineering });
  await slapd.addMember(cn.db, groupDn(cn.engineering));
  return cn;
}

async function canopyGroup() {
  const group = await newGroup(stack.gw, owner.secret);
  await copiedMembership(stack, group.id, owner.user.id, OWNER);
  return group.id;
}

/** The group's direct members as GET /groups/:id/members lists them (a duplicate would show). */
async function memberList(groupId: number) {
  const res = await stack.gw.get(`/api/v4/groups/${groupId}/members?per_page=100`, { token: owner.secret });
  expect(res.status).toBe(200);
  return (res.body as { id: number; access_level: number }[]).map((m) => m.id).sort((a, b) => a - b);
}

/** The directory searches the sync of `groupId` sent, from the ldap service's log. */
const queriesOf = (groupId: number) =>
  stack.logs
    .records()
    .filter((r) => r.msg === "ldap sync read the directory" && r.group_id === groupId)
    .map((r) => r.queries as number);

describe("nested groups on Active Directory", () => {
  it("adds every person of engineering, backend and db once with the link's access; the loop ends; group DNs are no members", async () => {
    const [e1, e2, b1, b2, d1, stranger] = await people(6);
    // e1 is in engineering and again in db; the stranger (in db) has no Canopy account.
    const cn = await nestedGroups({
      engineering: [e1!, e2!],
      backend: [b1!, b2!],
      db: [d1!, e1!, stranger!],
    });
    const users = await Promise.all([e1, e2, b1, b2, d1].map((p) => ldapUser(stack, p!.dn)));
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn: cn.engineering }, DEVELOPER);

    const state = await syncNow(stack, owner.secret, groupId);
    // base is the whole domain, so the three group DNs are under it: counted as unknown people if
    // they were taken for members. Only the stranger is unknown.
    expect(state).toMatchObject({ status: "ready", error: null, desired_members: 5, unknown_dns: 1 });
    const members = await directMembers(stack, owner.secret, groupId);
    expect(users.map((u) => members.get(u.user.id))).toEqual(Array(5).fill(DEVELOPER));
    expect(await memberList(groupId)).toEqual(
      [owner.user.id, ...users.map((u) => u.user.id)].sort((a, b) => a - b),
    );
    // Loop protection: the group read, then one child search per group; db's child (engineering) is
    // already seen, so nothing is searched twice.
    expect(queriesOf(groupId)).toEqual([4]);
  });

  it("follows a change deep in the nesting on the next sync: a person leaving db leaves the group", async () => {
    const [e1, d1, d2] = await people(3);
    const cn = await nestedGroups({ engineering: [e1!], backend: [], db: [d1!, d2!] });
    const users = await Promise.all([e1, d1, d2].map((p) => ldapUser(stack, p!.dn)));
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn: cn.engineering }, MAINTAINER);
    expect((await syncNow(stack, owner.secret, groupId)).desired_members).toBe(3);

    await slapd.removeMember(cn.db, d2!.dn);
    expect(await syncNow(stack, owner.secret, groupId)).toMatchObject({
      status: "ready",
      desired_members: 2,
    });
    const members = await directMembers(stack, owner.secret, groupId);
    expect(users.map((u) => members.get(u.user.id))).toEqual([MAINTAINER, MAINTAINER, undefined]);
  });

  it("takes only people under base, directly listed or nested, even when they have an account", async () => {
    const [s1, s2] = await people(2, "staff");
    const [o1, o2] = await people(2, "partners");
    const cn = await nestedGroups({ engineering: [s1!, o1!], backend: [], db: [s2!, o2!] });
    const users = await Promise.all([s1, s2, o1, o2].map((p) => ldapUser(stack, p!.dn, "ldapstaff")));
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn: cn.engineering }, DEVELOPER, "ldapstaff");

    // Outside base is no member at all, so not an unknown one either. For o2 (nested) this is GitLab's
    // `members_within_base`; for o1 (listed directly) it is Canopy's: GitLab's Group#member_dns
    // applies the base only to ranged and nested members (in practice the same: signing in, which
    // gives a person an identity, searches under base).
    expect(await syncNow(stack, owner.secret, groupId)).toMatchObject({ desired_members: 2, unknown_dns: 0 });
    const members = await directMembers(stack, owner.secret, groupId);
    expect(users.map((u) => members.get(u.user.id))).toEqual([DEVELOPER, DEVELOPER, undefined, undefined]);
  });

  it("with active_directory false, nested groups' people are not added and a group DN is an unknown member (GitLab on OpenLDAP)", async () => {
    const [e1, b1, d1] = await people(3);
    const cn = await nestedGroups({ engineering: [e1!], backend: [b1!], db: [d1!] });
    const users = await Promise.all([e1, b1, d1].map((p) => ldapUser(stack, p!.dn, "ldapplain")));
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn: cn.engineering }, DEVELOPER, "ldapplain");

    expect(await syncNow(stack, owner.secret, groupId)).toMatchObject({ desired_members: 1, unknown_dns: 1 });
    const members = await directMembers(stack, owner.secret, groupId);
    expect(users.map((u) => members.get(u.user.id))).toEqual([DEVELOPER, undefined, undefined]);
    // Only the group itself was read: no nested-group search.
    expect(queriesOf(groupId)).toEqual([1]);
  });
});

describe("sAMAccountName as uid", () => {
  it("signs a person in by sAMAccountName (any case) through the password grant, and the first sign-in syncs their AD group", async () => {
    const uid = unique("p").toLowerCase();
    const logon = `Ad.${uid}`;
    const dn = await slapd.addPerson({ uid, sAMAccountName: logon });
    const cn = unique("team");
    await slapd.addGroup({ cn, kind: "group", members: [dn] });
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn }, DEVELOPER);

    const grant = await stack.gw.post("/oauth/token", {
      form: { grant_type: "password", username: logon.toUpperCase(), password: defaultPassword(uid) },
    });
    expect(grant.status).toBe(200);
    const token = (grant.body as { access_token: string }).access_token;
    const me = await stack.gw.get("/api/v4/user", { token });
    // The username from `attributes.username: sAMAccountName`, lower-cased (lowercase_usernames).
    expect(me.body).toMatchObject({
      username: logon.toLowerCase(),
      identities: [{ provider: "ldapmain", extern_uid: normalizeDn(dn) }],
    });
    const userId = (me.body as { id: number }).id;
    await syncFinished(stack, groupId, 0);
    await waitFor("the new user's membership", async () =>
      (await directMembers(stack, owner.secret, groupId)).get(userId) === DEVELOPER ? true : undefined,
    );
    // A wrong password is refused as every failed LDAP sign-in is.
    const wrong = await stack.gw.post("/oauth/token", {
      form: { grant_type: "password", username: logon, password: "wrong" },
    });
    expect(wrong.status).toBe(400);
  });
});
