/**
 * LDAP group sync end to end against a throwaway OpenLDAP (reference §3.3–3.5): links made over
 * HTTP, POST /groups/:id/ldap_sync, the ldap service reading slapd, the groups service applying the
 * desired members, the result read back through GET /groups/:id/members. Each test makes its own
 * directory people and groups, so tests never see each other's changes.
 */
import { normalizeDn } from "@canopy/kit";
import { ldapServiceDefinition } from "@canopy/ldap";
import { childLogger, startTestService, unique, waitFor, type TestService } from "@canopy/kit/testing";
import {
  defaultPassword,
  ldapServersEnv,
  personDn,
  startSlapd,
  type Slapd,
  type SlapdGroupKind,
} from "@canopy/kit/testing";
import { signedInUser, startStack, type SignedIn, type Stack } from "./support";
import {
  copiedMembership,
  directMembers,
  giveIdentity,
  ldapUser,
  link,
  newGroup,
  syncFinished,
  syncNow,
  syncState,
} from "./ldap-support";

const DEVELOPER = 30;
const MAINTAINER = 40;
const OWNER = 50;

let slapd: Slapd;
let stack: Stack;
let owner: SignedIn;
const servers = () => ({ CANOPY_LDAP_SERVERS: ldapServersEnv({ main: slapd.serverConfig() }) });
const env = () => ({ ...servers(), CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0", CANOPY_LDAP_SYNC_POLL_MS: "100" });

beforeAll(async () => {
  slapd = await startSlapd();
  // Auth signs people in with the same directory.
  stack = await startStack({ env: servers(), ldap: env() });
  owner = await signedInUser(stack);
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await slapd?.close();
});

/** New directory people (fresh uids), their DNs. */
async function people(n: number): Promise<{ uid: string; dn: string }[]> {
  const uids = Array.from({ length: n }, () => unique("p").toLowerCase());
  await slapd.addPeople(uids.map((uid) => ({ uid })));
  return uids.map((uid) => ({ uid, dn: personDn(uid) }));
}

/** A new directory group of `kind` (members as DNs, or uids for a posixGroup); its cn. */
async function directoryGroup(kind: SlapdGroupKind, members: string[]): Promise<string> {
  const cn = unique("g").toLowerCase();
  await slapd.addGroup({ cn, kind, members });
  return cn;
}

/** A new Canopy group owned by `owner`, copied by the ldap service. */
async function canopyGroup() {
  const group = await newGroup(stack.gw, owner.secret);
  await copiedMembership(stack, group.id, owner.user.id, OWNER);
  return group.id;
}

describe("one cn link (groupOfNames)", () => {
  it("adds the directory group's people with the link's access, skips and counts those without an account", async () => {
    const [a, b, nobody] = await people(3);
    const cn = await directoryGroup("groupOfNames", [a!.dn, b!.dn, nobody!.dn]);
    const alice = await ldapUser(stack, a!.dn);
    const bob = await ldapUser(stack, b!.dn);
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn }, DEVELOPER);

    const state = await syncNow(stack, owner.secret, groupId);
    expect(state).toMatchObject({ status: "ready", error: null, unknown_dns: 1, desired_members: 2 });
    expect(state.last_sync_at).toBeInstanceOf(Date);
    expect(state.last_successful_update_at).toBeInstanceOf(Date);
    const members = await directMembers(stack, owner.secret, groupId);
    expect(members.get(alice.user.id)).toBe(DEVELOPER);
    expect(members.get(bob.user.id)).toBe(DEVELOPER);
    // The owner is a local member: kept.
    expect(members.get(owner.user.id)).toBe(OWNER);
    expect(members.size).toBe(3);
  });

  it("updates access when the link changes, removes who leaves the directory group, keeps local members", async () => {
    const [a, b] = await people(2);
    const cn = await directoryGroup("groupOfNames", [a!.dn, b!.dn]);
    const alice = await ldapUser(stack, a!.dn);
    const bob = await ldapUser(stack, b!.dn);
    const groupId = await canopyGroup();
    const local = await signedInUser(stack);
    const added = await stack.gw.post(`/api/v4/groups/${groupId}/members`, {
      token: owner.secret,
      json: { user_id: local.user.id, access_level: DEVELOPER },
    });
    expect(added.status).toBe(201);
    await link(stack, owner.secret, groupId, { cn }, DEVELOPER);
    await syncNow(stack, owner.secret, groupId);

    const relinked = await stack.gw.delete(`/api/v4/groups/${groupId}/ldap_group_links/ldapmain/${cn}`, {
      token: owner.secret,
    });
    expect(relinked.status).toBe(204);
    await link(stack, owner.secret, groupId, { cn }, MAINTAINER);
    expect((await syncNow(stack, owner.secret, groupId)).status).toBe("ready");
    let members = await directMembers(stack, owner.secret, groupId);
    expect(members.get(alice.user.id)).toBe(MAINTAINER);
    expect(members.get(bob.user.id)).toBe(MAINTAINER);

    await slapd.removeMember(cn, b!.dn);
    expect((await syncNow(stack, owner.secret, groupId)).status).toBe("ready");
    members = await directMembers(stack, owner.secret, groupId);
    expect(members.has(bob.user.id)).toBe(false);
    expect(members.get(alice.user.id)).toBe(MAINTAINER);
    expect(members.get(local.user.id)).toBe(DEVELOPER);
    expect(members.get(owner.user.id)).toBe(OWNER);
  });

  it("keeps the last Owner even when they leave the directory group", async () => {
    const [c, d] = await people(2);
    const cn = await directoryGroup("groupOfUniqueNames", [c!.dn, d!.dn]);
    // The group's creator is the directory person: its only Owner, managed by the link.
    const creator = await signedInUser(stack);
    await giveIdentity(stack, creator.user.id, c!.dn);
    const group = await newGroup(stack.gw, creator.secret);
    await copiedMembership(stack, group.id, creator.user.id, OWNER);
    await link(stack, creator.secret, group.id, { cn }, OWNER);
    expect((await syncNow(stack, creator.secret, group.id)).status).toBe("ready");
    expect((await directMembers(stack, creator.secret, group.id)).get(creator.user.id)).toBe(OWNER);

    await slapd.removeMember(cn, c!.dn);
    expect((await syncNow(stack, creator.secret, group.id)).status).toBe("ready");
    expect((await directMembers(stack, creator.secret, group.id)).get(creator.user.id)).toBe(OWNER);
  });
});

describe("group shapes and links", () => {
  it("reads groupOfUniqueNames uniqueMember and posixGroup memberUid (uids resolved to people)", async () => {
    const [a, b, c] = await people(3);
    const unique = await directoryGroup("groupOfUniqueNames", [a!.dn]);
    const posix = await directoryGroup("posixGroup", [b!.uid, c!.uid, "no-such-uid"]);
    const users = await Promise.all([a, b, c].map((p) => ldapUser(stack, p!.dn)));
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn: unique }, DEVELOPER);
    await link(stack, owner.secret, groupId, { cn: posix }, MAINTAINER);
    const state = await syncNow(stack, owner.secret, groupId);
    expect(state).toMatchObject({ status: "ready", unknown_dns: 0, desired_members: 3 });
    const members = await directMembers(stack, owner.secret, groupId);
    expect(users.map((u) => members.get(u.user.id))).toEqual([DEVELOPER, MAINTAINER, MAINTAINER]);
  });

  it("gives the highest access across links, and a filter link's people under base", async () => {
    const [a, b, c] = await people(3);
    await slapd.replaceAttribute(c!.dn, "employeeType", ["sync-test-contractor"]);
    await slapd.replaceAttribute(a!.dn, "employeeType", ["sync-test-contractor"]);
    const devs = await directoryGroup("groupOfNames", [a!.dn, b!.dn]);
    const leads = await directoryGroup("groupOfNames", [a!.dn]);
    const users = await Promise.all([a, b, c].map((p) => ldapUser(stack, p!.dn)));
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn: devs }, DEVELOPER);
    await link(stack, owner.secret, groupId, { cn: leads }, MAINTAINER);
    await link(stack, owner.secret, groupId, { filter: "(employeeType=sync-test-contractor)" }, 20);
    expect((await syncNow(stack, owner.secret, groupId)).status).toBe("ready");
    const members = await directMembers(stack, owner.secret, groupId);
    expect(users.map((u) => members.get(u.user.id))).toEqual([MAINTAINER, DEVELOPER, 20]);
  });

  it("does not resolve nested groups on OpenLDAP (GitLab does on Active Directory only): a group DN is no person", async () => {
    const [a, b] = await people(2);
    const inner = await directoryGroup("groupOfNames", [a!.dn]);
    const outer = await directoryGroup("groupOfNames", [`cn=${inner},${slapd.groupBase}`, b!.dn]);
    const alice = await ldapUser(stack, a!.dn);
    const bob = await ldapUser(stack, b!.dn);
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn: outer }, DEVELOPER);
    expect(await syncNow(stack, owner.secret, groupId)).toMatchObject({ status: "ready", unknown_dns: 1 });
    const members = await directMembers(stack, owner.secret, groupId);
    expect(members.get(bob.user.id)).toBe(DEVELOPER);
    expect(members.has(alice.user.id)).toBe(false);
  });

  it("a cn that is not in the directory removes the LDAP members and keeps the rest", async () => {
    const [a] = await people(1);
    const cn = await directoryGroup("groupOfNames", [a!.dn]);
    const alice = await ldapUser(stack, a!.dn);
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn }, DEVELOPER);
    await syncNow(stack, owner.secret, groupId);
    await slapd.deleteEntry(`cn=${cn},${slapd.groupBase}`);
    expect((await syncNow(stack, owner.secret, groupId)).status).toBe("ready");
    const members = await directMembers(stack, owner.secret, groupId);
    expect(members.has(alice.user.id)).toBe(false);
    expect(members.get(owner.user.id)).toBe(OWNER);
  });
});

describe("a directory that is down", () => {
  it("fails the sync with its reason and changes no membership; the next sync after it is back works", async () => {
    const [a, b] = await people(2);
    const cn = await directoryGroup("groupOfNames", [a!.dn, b!.dn]);
    const alice = await ldapUser(stack, a!.dn);
    const bob = await ldapUser(stack, b!.dn);
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn }, DEVELOPER);
    await syncNow(stack, owner.secret, groupId);
    const before = await directMembers(stack, owner.secret, groupId);
    expect(before.get(alice.user.id)).toBe(DEVELOPER);

    await slapd.removeMember(cn, b!.dn);
    await slapd.stop();
    try {
      const failed = await syncNow(stack, owner.secret, groupId);
      expect(failed.status).toBe("failed");
      expect(failed.error).toMatch(/^ldapmain: LDAP server ldapmain \(127\.0\.0\.1:\d+\) cannot be used/);
      expect(failed.last_update_at!.getTime()).toBeGreaterThan(failed.last_successful_update_at!.getTime());
      expect(await directMembers(stack, owner.secret, groupId)).toEqual(before);
    } finally {
      await slapd.start();
    }
    const retried = await syncNow(stack, owner.secret, groupId);
    expect(retried).toMatchObject({ status: "ready", error: null });
    const after = await directMembers(stack, owner.secret, groupId);
    expect(after.has(bob.user.id)).toBe(false);
    expect(after.get(alice.user.id)).toBe(DEVELOPER);
  });
});

describe("several replicas", () => {
  let second: TestService<never, unknown> | undefined;
  afterAll(() => second?.stop());

  it("never sync one group twice at once: each (group, generation) is read once, every group ends right", async () => {
    // On the stack's own database and event stream (startStack gives an ldap stack its own).
    const { CANOPY_DATABASE_URL, CANOPY_EVENT_STREAM, CANOPY_SETTINGS_BUCKET } = stack.ldapService!.config;
    second = (await startTestService(ldapServiceDefinition, {
      env: { ...env(), CANOPY_DATABASE_URL, CANOPY_EVENT_STREAM, CANOPY_SETTINGS_BUCKET },
      log: childLogger(stack.logs, "ldap2"),
    })) as unknown as TestService<never, unknown>;
    const [a] = await people(1);
    const cn = await directoryGroup("groupOfNames", [a!.dn]);
    const alice = await ldapUser(stack, a!.dn);
    const groups = await Promise.all(Array.from({ length: 6 }, () => canopyGroup()));
    for (const id of groups) await link(stack, owner.secret, id, { cn }, DEVELOPER);
    // Three requests per group at once, on the first replica; the second claims from the same table.
    await Promise.all(
      groups.flatMap((id) =>
        [1, 2, 3].map(() => stack.gw.post(`/api/v4/groups/${id}/ldap_sync`, { token: owner.secret })),
      ),
    );
    for (const id of groups) await syncFinished(stack, id, 0);
    for (const id of groups) {
      expect((await syncState(stack, id))?.status).toBe("ready");
      expect((await directMembers(stack, owner.secret, id)).get(alice.user.id)).toBe(DEVELOPER);
    }
    const reads = stack.logs
      .records()
      .filter((r) => r.msg === "ldap sync read the directory" && groups.includes(r.group_id as number))
      .map((r) => `${r.group_id as number}/${r.generation as number}`);
    expect(new Set(reads).size).toBe(reads.length);
    expect(reads.length).toBeGreaterThanOrEqual(groups.length);
  });
});

describe("first sign-in", () => {
  it("syncs the groups whose cn links name one of the new user's directory groups, and only those", async () => {
    const [a, other] = await people(2);
    const names = await directoryGroup("groupOfNames", [a!.dn]);
    const uids = await directoryGroup("posixGroup", [a!.uid]);
    const elsewhere = await directoryGroup("groupOfNames", [other!.dn]);
    const [byNames, byUid, unrelated, byFilter] = await Promise.all([1, 2, 3, 4].map(() => canopyGroup()));
    await link(stack, owner.secret, byNames!, { cn: names }, DEVELOPER);
    await link(stack, owner.secret, byUid!, { cn: uids.toUpperCase() }, MAINTAINER);
    await link(stack, owner.secret, unrelated!, { cn: elsewhere }, DEVELOPER);
    await slapd.replaceAttribute(a!.dn, "employeeType", ["first-sign-in"]);
    await link(stack, owner.secret, byFilter!, { filter: "(employeeType=first-sign-in)" }, DEVELOPER);

    // The first sign-in, through the password grant: auth creates the user with the identity.
    const grant = await stack.gw.post("/oauth/token", {
      form: { grant_type: "password", username: a!.uid, password: defaultPassword(a!.uid) },
    });
    expect(grant.status).toBe(200);
    const userId = await waitFor("the new user's identity at the ldap service", async () => {
      const { rows } = await stack.db.query(
        "SELECT user_id::int FROM ldap.identities WHERE provider = 'ldapmain' AND dn_key = $1",
        [normalizeDn(a!.dn)],
      );
      return rows[0]?.user_id as number | undefined;
    });
    await syncFinished(stack, byNames!, 0);
    await syncFinished(stack, byUid!, 0);
    expect((await directMembers(stack, owner.secret, byNames!)).get(userId)).toBe(DEVELOPER);
    expect((await directMembers(stack, owner.secret, byUid!)).get(userId)).toBe(MAINTAINER);
    // Neither a group linked to another directory group nor a filter link is synced at sign-in.
    expect(await syncState(stack, unrelated!)).toBeUndefined();
    expect(await syncState(stack, byFilter!)).toBeUndefined();
  });

  it("is not run for a user an administrator creates with an identity", async () => {
    const [a] = await people(1);
    const cn = await directoryGroup("groupOfNames", [a!.dn]);
    const groupId = await canopyGroup();
    await link(stack, owner.secret, groupId, { cn }, DEVELOPER);
    const made = await ldapUser(stack, a!.dn);
    // A later sign-in of the same person queues nothing either: the user is not new.
    const grant = await stack.gw.post("/oauth/token", {
      form: { grant_type: "password", username: a!.uid, password: defaultPassword(a!.uid) },
    });
    expect(grant.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await syncState(stack, groupId)).toBeUndefined();
    expect((await directMembers(stack, owner.secret, groupId)).has(made.user.id)).toBe(false);
  });
});
