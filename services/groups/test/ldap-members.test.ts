/**
 * The ldap service's DesiredLdapMembers command, as the groups service applies it: delivered through
 * the run's JetStream stream to the real durable consumer (recorded in this service's outbox, as the
 * ldap service records it in its own), in the transaction that marks it handled. Members are added
 * and updated with the `ldap` flag, LDAP members no longer desired are removed, local members are
 * never touched, the last Owner is kept, older generations change nothing, and every change is the
 * usual member event.
 */
import { payloadOf, recordEvent, withTransaction } from "@canopy/kit";
import { events, GROUPS_EVENTS, LDAP_EVENTS, type ldapEvents } from "@canopy/protos";
import { addAs, DIRECT, memberEvents, membersRpc, type MembersRpc } from "./members-support";
import { startHarness, waitFor, type Harness, type TestUser } from "./support";

let h: Harness;
let rpc: MembersRpc;
let owner: TestUser;
let generation = 0;

beforeAll(async () => {
  h = await startHarness();
  rpc = membersRpc(h);
  owner = await h.newUser();
});
afterAll(() => h?.stop());

/** Sends the command and waits for the consumer to apply it; answers its LdapMembersApplied. */
async function send(command: Partial<ldapEvents.DesiredLdapMembers> & { groupId: number }) {
  const payload: ldapEvents.DesiredLdapMembers = {
    generation: ++generation + Date.now(),
    members: [],
    managedUserIds: [],
    unknownDns: 0,
    ...command,
  };
  const id = await withTransaction(h.groupsService.pool, (tx) =>
    recordEvent(tx, LDAP_EVENTS.desiredMembers, payload),
  );
  await waitFor(
    "the ldap command to be applied",
    async () =>
      (
        await h.db.query(
          "SELECT 1 FROM processed_events WHERE consumer = 'groups-ldap-members' AND event_id = $1",
          [id],
        )
      ).rowCount === 1,
    15_000,
  );
  const { rows } = await h.db.query<{ envelope: Buffer }>(
    "SELECT envelope FROM outbox WHERE subject = $1 ORDER BY seq DESC LIMIT 50",
    [GROUPS_EVENTS.ldapMembersApplied.subject],
  );
  for (const { envelope } of rows) {
    const answer = payloadOf(events.Event.decode(envelope), GROUPS_EVENTS.ldapMembersApplied);
    if (answer?.groupId === payload.groupId && answer.generation === payload.generation)
      return { payload, answer };
  }
  throw new Error("no LdapMembersApplied answer");
}

const members = async (groupId: number) =>
  (
    await h.db.query<{ user_id: string; access_level: number; ldap: boolean }>(
      "SELECT user_id, access_level, ldap FROM members WHERE namespace_id = $1 ORDER BY user_id",
      [groupId],
    )
  ).rows.map((r) => ({ userId: Number(r.user_id), accessLevel: r.access_level, ldap: r.ldap }));

describe("DesiredLdapMembers", () => {
  it("adds, updates and removes LDAP members, keeps local ones, and publishes the member events", async () => {
    const group = await h.newGroup(owner);
    const [alice, bob, carol, local] = [
      await h.newUser(),
      await h.newUser(),
      await h.newUser(),
      await h.newUser(),
    ];
    await addAs(rpc, owner, group.id, local, 20);
    const first = await send({
      groupId: group.id,
      members: [
        { userId: alice.user.id, accessLevel: 30 },
        { userId: bob.user.id, accessLevel: 20 },
      ],
    });
    expect(first.answer).toMatchObject({
      added: 2,
      updated: 0,
      removed: 0,
      keptLastOwner: 0,
      error: "",
      stale: false,
    });
    expect(await members(group.id)).toEqual(
      expect.arrayContaining([
        { userId: alice.user.id, accessLevel: 30, ldap: true },
        { userId: bob.user.id, accessLevel: 20, ldap: true },
        { userId: local.user.id, accessLevel: 20, ldap: false },
        { userId: owner.user.id, accessLevel: 50, ldap: false },
      ]),
    );
    // Bob leaves the directory group, Alice is promoted, Carol joins; the local member stays.
    const second = await send({
      groupId: group.id,
      members: [
        { userId: alice.user.id, accessLevel: 40 },
        { userId: carol.user.id, accessLevel: 10 },
      ],
    });
    expect(second.answer).toMatchObject({ added: 1, updated: 1, removed: 1 });
    const now = await members(group.id);
    expect(now.map((m) => m.userId).sort()).toEqual(
      [owner.user.id, alice.user.id, carol.user.id, local.user.id].sort((a, b) => a - b),
    );
    expect(now.find((m) => m.userId === alice.user.id)).toEqual({
      userId: alice.user.id,
      accessLevel: 40,
      ldap: true,
    });
    const recorded = await memberEvents(h, group.id);
    expect(recorded).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: "added", userId: alice.user.id, accessLevel: 30 }),
        expect.objectContaining({
          type: "updated",
          userId: alice.user.id,
          accessLevel: 40,
          oldAccessLevel: 30,
        }),
        expect.objectContaining({ type: "removed", userId: bob.user.id }),
        expect.objectContaining({ type: "added", userId: carol.user.id, accessLevel: 10 }),
      ]),
    );
    expect(recorded.some((e) => e.userId === local.user.id && e.type !== "added")).toBe(false);
    // The member API shows the flag.
    const listed = await rpc.listMembers({ actor: owner.actor, group: { id: group.id }, scope: DIRECT });
    expect(listed.members.find((m) => m.user!.id === alice.user.id)?.ldap).toBe(true);
    expect(listed.members.find((m) => m.user!.id === local.user.id)?.ldap).toBe(false);
  });

  it("removes a member the directory manages (an identity of the provider) even before it was flagged", async () => {
    const group = await h.newGroup(owner);
    const managed = await h.newUser();
    await addAs(rpc, owner, group.id, managed, 30);
    const res = await send({ groupId: group.id, members: [], managedUserIds: [managed.user.id] });
    expect(res.answer).toMatchObject({ removed: 1 });
    expect((await members(group.id)).map((m) => m.userId)).toEqual([owner.user.id]);
  });

  it("keeps the last Owner, and lowers an Owner only when another remains", async () => {
    const group = await h.newGroup(owner);
    // The creator is managed by the directory but in no linked group: the last Owner stays.
    const kept = await send({ groupId: group.id, members: [], managedUserIds: [owner.user.id] });
    expect(kept.answer).toMatchObject({ removed: 0, keptLastOwner: 1 });
    expect(await members(group.id)).toEqual([{ userId: owner.user.id, accessLevel: 50, ldap: true }]);
    // A directory Owner joins: now the creator may go.
    const other = await h.newUser();
    const swapped = await send({
      groupId: group.id,
      members: [{ userId: other.user.id, accessLevel: 50 }],
      managedUserIds: [owner.user.id],
    });
    expect(swapped.answer).toMatchObject({ added: 1, removed: 1, keptLastOwner: 0 });
    expect(await members(group.id)).toEqual([{ userId: other.user.id, accessLevel: 50, ldap: true }]);
    // Lowering the only Owner is refused too.
    const lowered = await send({ groupId: group.id, members: [{ userId: other.user.id, accessLevel: 30 }] });
    expect(lowered.answer).toMatchObject({ updated: 0, keptLastOwner: 1 });
  });

  it("raises a subgroup's LDAP level to a higher one inherited from an ancestor", async () => {
    const group = await h.newGroup(owner);
    const sub = await h.newGroup(owner, {}, group.id);
    const dev = await h.newUser();
    await addAs(rpc, owner, group.id, dev, 40);
    await send({ groupId: sub.id, members: [{ userId: dev.user.id, accessLevel: 20 }] });
    expect((await members(sub.id)).find((m) => m.userId === dev.user.id)).toEqual({
      userId: dev.user.id,
      accessLevel: 40,
      ldap: true,
    });
  });

  it("is idempotent: an older or repeated generation changes nothing; unknown users and groups are answered", async () => {
    const group = await h.newGroup(owner);
    const user = await h.newUser();
    const newer = await send({ groupId: group.id, members: [{ userId: user.user.id, accessLevel: 30 }] });
    const older = await send({
      groupId: group.id,
      members: [],
      managedUserIds: [user.user.id],
      generation: newer.payload.generation - 1,
    });
    expect(older.answer).toMatchObject({ stale: true, removed: 0 });
    const again = await send({
      groupId: group.id,
      members: [],
      managedUserIds: [user.user.id],
      generation: newer.payload.generation,
    });
    expect(again.answer).toMatchObject({ stale: true });
    expect((await members(group.id)).some((m) => m.userId === user.user.id)).toBe(true);
    const unknown = await send({ groupId: group.id, members: [{ userId: 2_000_000_000, accessLevel: 30 }] });
    expect(unknown.answer).toMatchObject({ unknownUsers: 1, added: 0 });
    const missing = await send({ groupId: 2_000_000_001, members: [] });
    expect(missing.answer.error).toBe("The group no longer exists");
  });

  it("adds a big directory group in one command: every member with its event, after the other changes", async () => {
    const group = await h.newGroup(owner);
    const early = await h.newUser();
    await send({ groupId: group.id, members: [{ userId: early.user.id, accessLevel: 10 }] });
    // Users the groups service knows (its copy), made directly: 1,000 sign-ups would be slow here.
    // Below 2^31: events carry user ids as int32.
    const base = 1_900_000_000 + Math.floor(Math.random() * 100_000) * 1_000;
    const many = Array.from({ length: 1_000 }, (_, i) => base + i);
    await h.db.query(
      "INSERT INTO users (id, username) SELECT u, 'ldap-many-' || u FROM unnest($1::bigint[]) u",
      [many],
    );
    const { answer } = await send({
      groupId: group.id,
      members: [
        { userId: early.user.id, accessLevel: 30 },
        ...many.map((userId) => ({ userId, accessLevel: 20 })),
      ],
    });
    expect(answer).toMatchObject({ added: 1_000, updated: 1, removed: 0, error: "" });
    const now = await members(group.id);
    expect(now.filter((m) => m.ldap && m.accessLevel === 20).map((m) => m.userId)).toEqual(many);
    const recorded = (await memberEvents(h, group.id)).filter(
      (e) => e.type !== "added" || e.userId !== owner.user.id,
    );
    // Early's promotion first (as the plan orders it), then one event per added member.
    const sinceFirst = recorded.slice(recorded.findIndex((e) => e.type === "updated"));
    expect(sinceFirst[0]).toMatchObject({ type: "updated", userId: early.user.id, accessLevel: 30 });
    expect(sinceFirst.slice(1).map((e) => [e.type, e.userId, e.accessLevel])).toEqual(
      many.map((userId) => ["added", userId, 20]),
    );
    await h.db.query("DELETE FROM users WHERE id = ANY($1::bigint[])", [many]);
  }, 60_000);
});
