/**
 * A directory that stops *during* a sync (issue 10, item 5): the sync is marked failed with the
 * directory's reason, no command reaches the groups service, and memberships stay as they were;
 * once the directory is back, the next sync applies what changed meanwhile. The group is a
 * posixGroup whose memberUids the sync maps to people one search each, so reading it takes long
 * enough for the stop to land in the middle.
 */
import { ldapServersEnv, personDn, startSlapd, unique, waitFor, type Slapd } from "@canopy/kit/testing";
import { signedInUser, startStack, type SignedIn, type Stack } from "./support";
import {
  copiedMembership,
  directMembers,
  ldapUser,
  link,
  newGroup,
  syncFinished,
  syncNow,
  syncState,
} from "./ldap-support";

const DEVELOPER = 30;
const OWNER = 50;
/** memberUids with no person behind them: each still costs the sync one directory search. */
const FILLER_UIDS = 6000;

let slapd: Slapd;
let stack: Stack;
let owner: SignedIn;
const servers = () => ({ CANOPY_LDAP_SERVERS: ldapServersEnv({ main: slapd.serverConfig() }) });

beforeAll(async () => {
  slapd = await startSlapd();
  stack = await startStack({
    env: servers(),
    ldap: { ...servers(), CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0", CANOPY_LDAP_SYNC_POLL_MS: "50" },
  });
  owner = await signedInUser(stack);
}, 300_000);
afterAll(async () => {
  await stack?.stop();
  await slapd?.close();
});

it("fails the sync it interrupts with the directory's reason and changes no membership", async () => {
  const [alice, bob, carol] = ["a", "b", "c"].map((p) => unique(p).toLowerCase());
  await slapd.addPeople([alice, bob, carol].map((uid) => ({ uid: uid! })));
  const filler = Array.from({ length: FILLER_UIDS }, (_, i) => `${unique("nobody")}${i}`.toLowerCase());
  const cn = unique("big").toLowerCase();
  await slapd.addGroup({ cn, kind: "posixGroup", members: [alice!, bob!, ...filler] });
  const users = await Promise.all([alice, bob, carol].map((uid) => ldapUser(stack, personDn(uid!))));
  const [aliceUser, bobUser, carolUser] = users.map((u) => u.user.id);
  const group = await newGroup(stack.gw, owner.secret);
  await copiedMembership(stack, group.id, owner.user.id, OWNER);
  await link(stack, owner.secret, group.id, { cn }, DEVELOPER);

  // Thousands of memberUids to map: on a busy machine a whole read has taken over 10 s.
  const first = await syncNow(stack, owner.secret, group.id, 90_000);
  expect(first).toMatchObject({ status: "ready", unknown_dns: 0, desired_members: 2 });
  const readFor = first.last_successful_update_at!.getTime() - first.last_sync_at!.getTime();
  const before = await directMembers(stack, owner.secret, group.id);
  expect(before).toEqual(
    new Map([
      [owner.user.id, OWNER],
      [aliceUser, DEVELOPER],
      [bobUser, DEVELOPER],
    ]),
  );

  // Meanwhile in the directory: bob leaves, carol joins. Then a sync, and the stop during it.
  await slapd.removeMember(cn, bob!);
  await slapd.addMember(cn, carol!);
  const res = await stack.gw.post(`/api/v4/groups/${group.id}/ldap_sync`, { token: owner.secret });
  expect(res.status).toBe(202);
  const started = await waitFor("the sync started", async () => {
    const state = await syncState(stack, group.id);
    return state?.status === "started" && state.generation > 1 ? state : undefined;
  });
  const stopAfterMs = Math.min(300, readFor / 4);
  await new Promise((r) => setTimeout(r, stopAfterMs));
  // The stop lands while the sync is still reading: it had not finished when the directory went.
  expect((await syncState(stack, group.id))?.status).toBe("started");
  await slapd.stop();
  try {
    const failed = await syncFinished(stack, group.id, started.generation - 1, 60_000);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^ldapmain: LDAP server ldapmain \(127\.0\.0\.1:\d+\) /);
    expect(failed.last_sync_at!.getTime()).toBeGreaterThan(first.last_sync_at!.getTime());
    expect(failed.last_successful_update_at).toEqual(first.last_successful_update_at);
    // No command was sent: the groups service changed nothing (bob stays, carol is not added).
    await new Promise((r) => setTimeout(r, 300));
    expect(await directMembers(stack, owner.secret, group.id)).toEqual(before);
  } finally {
    await slapd.start();
  }

  const recovered = await syncNow(stack, owner.secret, group.id, 90_000);
  expect(recovered).toMatchObject({ status: "ready", error: null, desired_members: 2 });
  expect(await directMembers(stack, owner.secret, group.id)).toEqual(
    new Map([
      [owner.user.id, OWNER],
      [aliceUser, DEVELOPER],
      [carolUser, DEVELOPER],
    ]),
  );
}, 300_000);
