import { GROUPS_EVENTS } from "@canopy/protos";
import { customAttributesRpc, groupEvents, recordedEvents } from "./sharing-support";
import { ANONYMOUS, failed, failure, startHarness, status, type Harness } from "./support";

let h: Harness;
let attrs: ReturnType<typeof customAttributesRpc>;
beforeAll(async () => {
  h = await startHarness();
  attrs = customAttributesRpc(h);
});
afterAll(() => h.stop());

const KEY_NOT_FOUND = failed(status.NOT_FOUND, { httpStatus: 404, publicMessage: "404 Not found" });
const stored = async (groupId: number) =>
  (
    await h.db.query("SELECT key, value FROM custom_attributes WHERE namespace_id = $1 ORDER BY key", [
      groupId,
    ])
  ).rows;

describe("custom attributes, as an administrator", () => {
  it("sets (create, then update), reads, lists and deletes, recording an event for each change", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    const ref = { id: group.id };
    expect(await attrs.listCustomAttributes({ actor: h.admin, group: ref })).toEqual({
      customAttributes: [],
    });
    expect(
      await attrs.setCustomAttribute({ actor: h.admin, group: ref, key: "plan", value: "gold" }),
    ).toEqual({
      key: "plan",
      value: "gold",
    });
    await attrs.setCustomAttribute({ actor: h.admin, group: ref, key: "team", value: "core" });
    expect(
      await attrs.setCustomAttribute({ actor: h.admin, group: ref, key: "plan", value: "silver" }),
    ).toEqual({
      key: "plan",
      value: "silver",
    });
    expect(await attrs.getCustomAttribute({ actor: h.admin, group: ref, key: "plan" })).toEqual({
      key: "plan",
      value: "silver",
    });
    expect(await attrs.listCustomAttributes({ actor: h.admin, group: { fullPath: group.fullPath } })).toEqual(
      {
        customAttributes: [
          { key: "plan", value: "silver" },
          { key: "team", value: "core" },
        ],
      },
    );
    expect(await attrs.deleteCustomAttribute({ actor: h.admin, group: ref, key: "team" })).toEqual({});
    expect(await stored(group.id)).toEqual([{ key: "plan", value: "silver" }]);

    const set = await recordedEvents(
      h,
      GROUPS_EVENTS.customAttributeSet.subject,
      groupEvents.CustomAttributeSet,
    );
    expect(set.filter((e) => e.groupId === group.id)).toEqual([
      { groupId: group.id, key: "plan", value: "gold" },
      { groupId: group.id, key: "team", value: "core" },
      { groupId: group.id, key: "plan", value: "silver" },
    ]);
    const removed = await recordedEvents(
      h,
      GROUPS_EVENTS.customAttributeRemoved.subject,
      groupEvents.CustomAttributeRemoved,
    );
    expect(removed.filter((e) => e.groupId === group.id)).toEqual([{ groupId: group.id, key: "team" }]);
  });

  it("answers 404 Not found (lower-case) for a missing key, 404 Group Not Found for a missing group", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    expect(
      await failure(attrs.getCustomAttribute({ actor: h.admin, group: { id: group.id }, key: "nope" })),
    ).toEqual(KEY_NOT_FOUND);
    expect(
      await failure(attrs.deleteCustomAttribute({ actor: h.admin, group: { id: group.id }, key: "nope" })),
    ).toEqual(KEY_NOT_FOUND);
    const missing = failed(status.NOT_FOUND, { resource: "Group" });
    expect(await failure(attrs.listCustomAttributes({ actor: h.admin, group: { id: 999_999_999 } }))).toEqual(
      missing,
    );
    expect(
      await failure(
        attrs.setCustomAttribute({
          actor: h.admin,
          group: { fullPath: "no/such/group" },
          key: "k",
          value: "v",
        }),
      ),
    ).toEqual(missing);
    // A user's personal namespace is not a group.
    const personal = await h.db.query("SELECT id FROM namespaces WHERE owner_id = $1", [owner.user.id]);
    expect(
      await failure(attrs.listCustomAttributes({ actor: h.admin, group: { id: personal.rows[0].id } })),
    ).toEqual(missing);
  });

  it("refuses blank, oversized and NUL-carrying keys and values with model errors, storing nothing", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner);
    const set = (key: string, value: string) =>
      failure(attrs.setCustomAttribute({ actor: h.admin, group: { id: group.id }, key, value }));
    expect(await set("k", "")).toEqual(
      failed(status.INVALID_ARGUMENT, { fieldErrors: { value: ["can't be blank"] } }),
    );
    expect(await set("", "  ")).toEqual(
      failed(status.INVALID_ARGUMENT, {
        fieldErrors: { key: ["can't be blank"], value: ["can't be blank"] },
      }),
    );
    expect(await set("k".repeat(256), "v".repeat(10_001))).toEqual(
      failed(status.INVALID_ARGUMENT, {
        fieldErrors: {
          key: ["is too long (maximum is 255 characters)"],
          value: ["is too long (maximum is 10000 characters)"],
        },
      }),
    );
    expect(await set("a\u0000b", "v\u0000")).toEqual(
      failed(status.INVALID_ARGUMENT, { fieldErrors: { key: ["is invalid"], value: ["is invalid"] } }),
    );
    expect(await stored(group.id)).toEqual([]);
    // The limits themselves are fine, and so is any unicode.
    await attrs.setCustomAttribute({
      actor: h.admin,
      group: { id: group.id },
      key: "k".repeat(255),
      value: "ü".repeat(10_000),
    });
    expect(await stored(group.id)).toHaveLength(1);
  });
});

describe("custom attributes for everyone else", () => {
  it("is 403 for owners, members, strangers and anonymous callers, before the group is looked up", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner, { visibility: "public" });
    await attrs.setCustomAttribute({ actor: h.admin, group: { id: group.id }, key: "secret", value: "s" });
    const stranger = await h.newUser();
    for (const actor of [owner.actor, stranger.actor, ANONYMOUS])
      for (const ref of [{ id: group.id }, { id: 999_999_999 }]) {
        expect(await failure(attrs.listCustomAttributes({ actor, group: ref }))).toEqual(
          failed(status.PERMISSION_DENIED),
        );
        expect(await failure(attrs.getCustomAttribute({ actor, group: ref, key: "secret" }))).toEqual(
          failed(status.PERMISSION_DENIED),
        );
      }
    for (const actor of [owner.actor, stranger.actor]) {
      expect(
        await failure(
          attrs.setCustomAttribute({ actor, group: { id: group.id }, key: "secret", value: "x" }),
        ),
      ).toEqual(failed(status.PERMISSION_DENIED));
      expect(
        await failure(attrs.deleteCustomAttribute({ actor, group: { id: group.id }, key: "secret" })),
      ).toEqual(failed(status.PERMISSION_DENIED));
    }
    for (const call of [
      attrs.setCustomAttribute({ actor: ANONYMOUS, group: { id: group.id }, key: "secret", value: "x" }),
      attrs.deleteCustomAttribute({ actor: ANONYMOUS, group: { id: group.id }, key: "secret" }),
    ])
      expect((await failure(call)).code).toBe(status.UNAUTHENTICATED);
    expect(await stored(group.id)).toEqual([{ key: "secret", value: "s" }]);
  });
});

describe("GetGroup with_custom_attributes", () => {
  it("fills custom_attributes for administrators only, silently ignoring the flag for others", async () => {
    const owner = await h.newUser();
    const group = await h.newGroup(owner, { visibility: "public" });
    await attrs.setCustomAttribute({ actor: h.admin, group: { id: group.id }, key: "a", value: "1" });
    const get = (actor: typeof owner.actor, withCustomAttributes: boolean) =>
      h.rpc.getGroup({ actor, group: { id: group.id }, withCustomAttributes });
    expect((await get(h.admin, true)).group!.customAttributes).toEqual([{ key: "a", value: "1" }]);
    expect((await get(h.admin, false)).group!.customAttributes).toEqual([]);
    expect((await get(owner.actor, true)).group!.customAttributes).toEqual([]);
    expect((await get(ANONYMOUS, true)).group!.customAttributes).toEqual([]);
  });
});
