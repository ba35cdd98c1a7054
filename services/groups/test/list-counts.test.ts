/**
 * The kept counts of the group lists (migration 0008, store/list-counts.ts): X-Total stays exact
 * after every kind of write that can move it, with the count read on one replica and the write made
 * on another (the cache lives in PostgreSQL; triggers drop it in the writing transaction).
 *
 * Each test makes the count be kept first (a full page: per_page 1 over two or more groups), checks
 * that an entry was kept, writes on replica B, and expects replica A's next count to be exact.
 */
import { filledClient, observeListCountBumps, startTestService, type TestService } from "@canopy/kit/testing";
import { groups } from "@canopy/protos";
import type { GroupsConfig } from "../src/config";
import type { Deps } from "../src/deps";
import { groupsServiceDefinition } from "../src/service";
import { lifecycleRpc } from "./lifecycle-support";
import { addAs, membersRpc } from "./members-support";
import { customAttributesRpc, sharingRpc } from "./sharing-support";
import { startHarness, unique, type Harness, type TestUser } from "./support";

let h: Harness;
/** The second replica, where the writes go. */
let b: TestService<GroupsConfig, Deps>;
let bGroups: ReturnType<typeof groupsRpcOf>;

const groupsRpcOf = (service: TestService<GroupsConfig, Deps>) =>
  filledClient(service.client(groups.GroupsServiceService), {
    getGroup: groups.GetGroupRequest,
    listGroups: groups.ListGroupsRequest,
    createGroup: groups.CreateGroupRequest,
    updateGroup: groups.UpdateGroupRequest,
  });
/** Another part's client on replica B (their support files take a harness for its service). */
const onB = <T>(rpcOf: (h: Harness) => T) => rpcOf({ ...h, groupsService: b });

beforeAll(async () => {
  h = await startHarness();
  b = await startTestService(groupsServiceDefinition, { env: { CANOPY_GROUPS_ADJOURNED_DELETION_MS: "0" } });
  bGroups = groupsRpcOf(b);
});
afterAll(async () => {
  await b?.stop();
  await h?.stop();
});

/** X-Total of a list on replica A (the harness's service), a page of one so it must count. */
async function totalOn(who: TestUser | typeof h.admin, options: Partial<groups.ListGroupsRequest> = {}) {
  const actor = "actor" in who ? who.actor : who;
  const res = await h.rpc.listGroups({
    scope: groups.GroupScope.GROUP_SCOPE_ALL,
    ...options,
    actor,
    page: { page: 1, perPage: 1, keyset: false, cursor: "" },
  });
  return res.page!.total;
}

/** How many counts are kept for the user (0: lists that depend on no one's memberships). */
const keptFor = async (userId: number) =>
  Number((await h.db.query("SELECT count(*) AS n FROM list_counts WHERE user_id = $1", [userId])).rows[0].n);

/** A user owning `n` top-level groups (made on replica B); the count of their list is kept. */
async function ownerOf(n: number) {
  const owner = await h.newUser();
  const made: groups.Group[] = [];
  for (let i = 0; i < n; i++) made.push(await h.newGroup(owner));
  expect(await totalOn(owner)).toBe(n);
  expect(await keptFor(owner.user.id)).toBeGreaterThan(0);
  // Kept: the same answer again, now read from the cache.
  expect(await totalOn(owner)).toBe(n);
  return { owner, made };
}

async function createOnB(owner: TestUser, parentId = 0, visibility = "private") {
  const path = unique("lc_");
  const res = await bGroups.createGroup({
    actor: owner.actor,
    attributes: { name: path, path, visibility },
    parentId,
  });
  return res.group!;
}

const updateOnB = (owner: TestUser, id: number, attributes: groups.UpdateGroupRequest["attributes"]) =>
  bGroups.updateGroup({ actor: owner.actor, group: { id }, attributes });

describe("kept counts follow every write, across replicas", () => {
  test("group created (top level and subgroup)", async () => {
    const { owner, made } = await ownerOf(2);
    await createOnB(owner);
    expect(await totalOn(owner)).toBe(3);
    await createOnB(owner, made[0]!.id);
    expect(await totalOn(owner)).toBe(4);
  });

  test("group removed (free plan: gone from the lists at once)", async () => {
    const { owner, made } = await ownerOf(3);
    const free = await startTestService(groupsServiceDefinition, {
      env: { CANOPY_PLAN: "free", CANOPY_GROUPS_ADJOURNED_DELETION_MS: "0" },
    });
    try {
      await lifecycleRpc(free).deleteGroup({ actor: owner.actor, group: { id: made[0]!.id } });
      expect(await totalOn(owner)).toBe(2);
    } finally {
      await free.stop();
    }
  });

  test("group transferred into a tree the user sees", async () => {
    const owner = await h.newUser();
    const member = await h.newUser();
    const root = await h.newGroup(owner);
    await h.newGroup(owner, {}, root.id);
    await addAs(membersRpc(h), owner, root.id, member, 30);
    expect(await totalOn(member)).toBe(2);
    const elsewhere = await h.newGroup(owner);
    const moved = await createOnB(owner, elsewhere.id);
    expect(await totalOn(member)).toBe(2);
    await lifecycleRpc(b).transferGroup({
      actor: owner.actor,
      group: { id: moved.id },
      newParentId: root.id,
    });
    expect(await totalOn(member)).toBe(3);
  });

  test("visibility changed (all_available counts internal and public groups)", async () => {
    const owner = await h.newUser();
    const stranger = await h.newUser();
    const tag = unique("vis");
    const pub = await createOnB(owner, 0, "public");
    await updateOnB(owner, pub.id, { name: `${tag} a` });
    const mine = await createOnB(owner, 0, "private");
    await updateOnB(owner, mine.id, { name: `${tag} b` });
    const seen = () => totalOn(stranger, { allAvailable: true, search: tag });
    // One public group: the page is full, and the count is kept for the stranger.
    expect(await seen()).toBe(1);
    expect(await seen()).toBe(1);
    await updateOnB(owner, mine.id, { visibility: "internal" });
    expect(await seen()).toBe(2);
  });

  test("renamed (a search's count)", async () => {
    const { owner, made } = await ownerOf(2);
    const tag = unique("ren");
    const counted = () => totalOn(owner, { search: tag });
    await updateOnB(owner, made[0]!.id, { name: `${tag} one` });
    const third = await createOnB(owner);
    await updateOnB(owner, third.id, { name: `${tag} two` });
    expect(await counted()).toBe(2);
    await updateOnB(owner, made[1]!.id, { name: `${tag} three` });
    expect(await counted()).toBe(3);
  });

  test("member added, changed and removed", async () => {
    const { owner, made } = await ownerOf(2);
    const { owner: member } = await ownerOf(2);
    const bMembers = onB(membersRpc);
    await addAs(bMembers, owner, made[0]!.id, member, 30);
    expect(await totalOn(member)).toBe(3);
    expect(await totalOn(member, { minAccessLevel: 40 })).toBe(2);
    await bMembers.updateMember({
      actor: owner.actor,
      group: { id: made[0]!.id },
      userId: member.user.id,
      accessLevel: 40,
    });
    expect(await totalOn(member, { minAccessLevel: 40 })).toBe(3);
    await bMembers.removeMember({ actor: owner.actor, group: { id: made[0]!.id }, userId: member.user.id });
    expect(await totalOn(member)).toBe(2);
    expect(await totalOn(member, { minAccessLevel: 40 })).toBe(2);
  });

  test("share created and removed", async () => {
    const { owner: sharer, made } = await ownerOf(2);
    const { owner: member, made: theirs } = await ownerOf(2);
    const bSharing = onB(sharingRpc);
    // The sharer must see the invited group.
    await addAs(membersRpc(h), member, theirs[0]!.id, sharer, 10);
    await bSharing.shareGroup({
      actor: sharer.actor,
      group: { id: made[0]!.id },
      sharedWithGroupId: theirs[0]!.id,
      groupAccess: 30,
      expiresAt: "",
    });
    expect(await totalOn(member)).toBe(3);
    await bSharing.unshareGroup({
      actor: sharer.actor,
      group: { id: made[0]!.id },
      sharedWithGroupId: theirs[0]!.id,
    });
    expect(await totalOn(member)).toBe(2);
  });

  test("custom attribute set and removed (the administrators' filter)", async () => {
    const { made } = await ownerOf(3);
    const key = unique("ck");
    const bAttributes = onB(customAttributesRpc);
    const counted = () => totalOn(h.admin, { customAttributes: [{ key, value: "x" }] });
    await bAttributes.setCustomAttribute({ actor: h.admin, group: { id: made[0]!.id }, key, value: "x" });
    await bAttributes.setCustomAttribute({ actor: h.admin, group: { id: made[1]!.id }, key, value: "x" });
    expect(await counted()).toBe(2);
    expect(await keptFor(0)).toBeGreaterThan(0);
    await bAttributes.setCustomAttribute({ actor: h.admin, group: { id: made[2]!.id }, key, value: "x" });
    expect(await counted()).toBe(3);
    await bAttributes.deleteCustomAttribute({ actor: h.admin, group: { id: made[2]!.id }, key });
    expect(await counted()).toBe(2);
  });

  test("an entry is read while valid, and only on the UTC day it was counted", async () => {
    const { owner } = await ownerOf(2);
    // Proof that the answer comes from the entry: a count no recount would give.
    await h.db.query("UPDATE list_counts SET count = 7 WHERE user_id = $1", [owner.user.id]);
    expect(await totalOn(owner)).toBe(7);
    // Counted yesterday: memberships may have expired since, whatever was written.
    await h.db.query("UPDATE list_counts SET counted_on = counted_on - 1 WHERE user_id = $1", [
      owner.user.id,
    ]);
    expect(await totalOn(owner)).toBe(2);
  });
});

test("makes the list-count bumps at commit: a group write holds no generation's row while it runs (migration 0015)", async () => {
  // Before 0015 the second writer waited for the first one's commit: every group write queued behind it.
  expect(await observeListCountBumps(h.db)).toEqual({
    secondWriterWaited: false,
    // Since migration 0016 a writer bumps its connection's shard: another's commit does not queue behind it.
    secondCommitWaited: false,
    committedTwice: [1, 1],
    rolledBack: [0, 0],
    savepointRolledBack: [0, 0],
    savepointRolledBackThenBumped: [1, 1],
  });
});
