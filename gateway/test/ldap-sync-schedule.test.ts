/**
 * The scheduled LDAP sync (reference §3.3, GitLab's hourly LdapAllGroupsSyncWorker) with a short
 * CANOPY_LDAP_SYNC_INTERVAL_SECONDS: linked groups are synced without anyone asking, and a person
 * who leaves the directory group is gone after the next period.
 */
import { ldapServersEnv, personDn, startSlapd, unique, waitFor, type Slapd } from "@canopy/kit/testing";
import { signedInUser, startStack, type Stack } from "./support";
import { copiedMembership, directMembers, ldapUser, link, newGroup, syncState } from "./ldap-support";

let slapd: Slapd;
let stack: Stack;
beforeAll(async () => {
  slapd = await startSlapd();
  stack = await startStack({
    ldap: {
      CANOPY_LDAP_SERVERS: ldapServersEnv({ main: slapd.serverConfig() }),
      CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "1",
      CANOPY_LDAP_SYNC_POLL_MS: "100",
    },
  });
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  await slapd?.close();
});

it("syncs every linked group each interval, without a request", async () => {
  const uids = [unique("p").toLowerCase(), unique("p").toLowerCase()];
  await slapd.addPeople(uids.map((uid) => ({ uid })));
  const cn = unique("g").toLowerCase();
  await slapd.addGroup({ cn, kind: "groupOfNames", members: uids.map((uid) => personDn(uid)) });
  const [alice, bob] = [await ldapUser(stack, personDn(uids[0]!)), await ldapUser(stack, personDn(uids[1]!))];
  const owner = await signedInUser(stack);
  const group = await newGroup(stack.gw, owner.secret);
  await copiedMembership(stack, group.id, owner.user.id, 50);
  await link(stack, owner.secret, group.id, { cn }, 30);

  await waitFor(
    "the scheduled sync to add both",
    async () => (await directMembers(stack, owner.secret, group.id)).size === 3,
    10_000,
  );
  expect((await directMembers(stack, owner.secret, group.id)).get(alice!.user.id)).toBe(30);
  const first = (await syncState(stack, group.id))!;
  expect(first.status).toMatch(/ready|pending|started/);

  await slapd.removeMember(cn, personDn(uids[1]!));
  await waitFor(
    "a later scheduled sync to remove the one who left",
    async () => !(await directMembers(stack, owner.secret, group.id)).has(bob!.user.id),
    10_000,
  );
  expect((await syncState(stack, group.id))!.generation).toBeGreaterThan(first.generation);
});
