/**
 * Settings a top-level group imposes on its tree: `allow_mfa_for_subgroups` against subgroups'
 * `require_two_factor_authentication` (on create, update and transfer), and shared runners closed on
 * a group reaching what is below it (on update and transfer).
 */
import { GROUPS_EVENTS } from "@canopy/protos";
import { lifecycleRpc, recordedEvents } from "./lifecycle-support";
import { failed, failure, startHarness, status, unique, type Harness, type TestUser } from "./support";
import { invalidWith } from "./update-support";

let h: Harness;
let lc: ReturnType<typeof lifecycleRpc>;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness();
  lc = lifecycleRpc(h.groupsService);
  owner = await h.newUser();
});
afterAll(() => h.stop());

const update = (id: number, attributes: object) =>
  h.rpc.updateGroup({ actor: owner.actor, group: { id }, attributes });
const sub = (parentId: number, attributes: object = {}) =>
  h.newGroup(owner, { path: unique("s_"), ...attributes }, parentId);
const columns = async (id: number) =>
  (
    await h.db.query<{
      require_two_factor_authentication: boolean;
      allow_mfa_for_subgroups: boolean;
      shared_runners_setting: string;
    }>(
      "SELECT require_two_factor_authentication, allow_mfa_for_subgroups, shared_runners_setting FROM namespaces WHERE id = $1",
      [id],
    )
  ).rows[0]!;
const requires2fa = async (id: number) => (await columns(id)).require_two_factor_authentication;
const runners = async (id: number) => (await columns(id)).shared_runners_setting;
const FORBIDDEN = "is forbidden by a top-level group";

describe("allow_mfa_for_subgroups", () => {
  it("turned off on a top-level group turns the requirement off in every subgroup, not in the group itself", async () => {
    const root = await h.newGroup(owner, { requireTwoFactorAuthentication: true });
    const child = await sub(root.id, { requireTwoFactorAuthentication: true });
    const grandchild = await sub(child.id, { requireTwoFactorAuthentication: true });
    const relaxed = await sub(root.id);
    await update(root.id, { allowMfaForSubgroups: false });
    expect(await columns(root.id)).toMatchObject({
      allow_mfa_for_subgroups: false,
      require_two_factor_authentication: true,
    });
    expect([
      await requires2fa(child.id),
      await requires2fa(grandchild.id),
      await requires2fa(relaxed.id),
    ]).toEqual([false, false, false]);
    const [event] = await recordedEvents(h.db, GROUPS_EVENTS.groupUpdated, [root.id]);
    expect(event!.changed).toEqual(["allow_mfa_for_subgroups"]);
  });

  it("then refuses a subgroup that asks for 2FA, on update and on create, and changes nothing", async () => {
    const root = await h.newGroup(owner);
    const child = await sub(root.id);
    await update(root.id, { allowMfaForSubgroups: false });
    expect(
      await failure(update(child.id, { requireTwoFactorAuthentication: true, description: "x" })),
    ).toEqual(invalidWith({ require_two_factor_authentication: [FORBIDDEN] }));
    expect(await requires2fa(child.id)).toBe(false);
    const path = unique("s_");
    expect(
      await failure(
        h.rpc.createGroup({
          actor: owner.actor,
          attributes: { name: "x", path, requireTwoFactorAuthentication: true },
          parentId: child.id,
        }),
      ),
    ).toEqual(
      failed(status.INVALID_ARGUMENT, {
        httpStatus: 400,
        publicMessage: `Failed to save group {:require_two_factor_authentication=>["${FORBIDDEN}"]}`,
      }),
    );
    expect((await h.db.query("SELECT 1 FROM namespaces WHERE path = $1", [path])).rowCount).toBe(0);
    // Other updates of the subgroup still go through; turned on again, 2FA is allowed again.
    await update(child.id, { description: "fine" });
    await update(root.id, { allowMfaForSubgroups: true });
    await update(child.id, { requireTwoFactorAuthentication: true });
    expect(await requires2fa(child.id)).toBe(true);
  });

  it("is a top-level setting: a subgroup may not turn it off (400), true is a no-op, and create ignores it", async () => {
    const root = await h.newGroup(owner, { allowMfaForSubgroups: false } as object);
    expect((await columns(root.id)).allow_mfa_for_subgroups).toBe(true);
    const child = await sub(root.id);
    expect(await failure(update(child.id, { allowMfaForSubgroups: false }))).toEqual(
      invalidWith({ allow_mfa_for_subgroups: ["is not allowed since the group is not top-level group."] }),
    );
    await update(child.id, { allowMfaForSubgroups: true });
    expect((await columns(child.id)).allow_mfa_for_subgroups).toBe(true);
    expect(await recordedEvents(h.db, GROUPS_EVENTS.groupUpdated, [child.id])).toEqual([]);
  });
});

describe("transfer under a top-level group that forbids 2FA to its subgroups", () => {
  it("turns the requirement off in the moved group and below it when the new parent is that group", async () => {
    const strict = await h.newGroup(owner);
    await update(strict.id, { allowMfaForSubgroups: false });
    const moving = await h.newGroup(owner, { requireTwoFactorAuthentication: true });
    const child = await sub(moving.id, { requireTwoFactorAuthentication: true });
    await lc.transferGroup({ actor: owner.actor, group: { id: moving.id }, newParentId: strict.id });
    expect([await requires2fa(moving.id), await requires2fa(child.id)]).toEqual([false, false]);
  });

  it("fails, as GitLab's validation does, when the new parent is deeper and the group requires 2FA", async () => {
    const strict = await h.newGroup(owner);
    const inner = await sub(strict.id);
    await update(strict.id, { allowMfaForSubgroups: false });
    const moving = await h.newGroup(owner, { requireTwoFactorAuthentication: true });
    expect(
      await failure(
        lc.transferGroup({ actor: owner.actor, group: { id: moving.id }, newParentId: inner.id }),
      ),
    ).toEqual(
      failed(status.FAILED_PRECONDITION, {
        httpStatus: 400,
        publicMessage: `Transfer failed: Validation failed: Require two factor authentication ${FORBIDDEN}`,
      }),
    );
    expect((await h.db.query("SELECT parent_id FROM namespaces WHERE id = $1", [moving.id])).rows[0]).toEqual(
      {
        parent_id: null,
      },
    );
    // Without the requirement itself it moves, and what is below it is kept to the rule.
    await update(moving.id, { requireTwoFactorAuthentication: false });
    const child = await sub(moving.id, { requireTwoFactorAuthentication: true });
    await lc.transferGroup({ actor: owner.actor, group: { id: moving.id }, newParentId: inner.id });
    expect(await requires2fa(child.id)).toBe(false);
  });

  it("leaves the requirement alone under a top-level group that allows it", async () => {
    const open = await h.newGroup(owner);
    const moving = await h.newGroup(owner, { requireTwoFactorAuthentication: true });
    await lc.transferGroup({ actor: owner.actor, group: { id: moving.id }, newParentId: open.id });
    expect(await requires2fa(moving.id)).toBe(true);
  });
});

describe("shared runners", () => {
  it("on transfer, a group more open than its new parent takes the parent's unoverridable setting, and so does all below it", async () => {
    const closed = await h.newGroup(owner);
    await update(closed.id, { sharedRunnersSetting: "disabled_and_unoverridable" });
    const moving = await h.newGroup(owner);
    const child = await sub(moving.id);
    await update(child.id, { sharedRunnersSetting: "disabled_with_override" });
    const detail = await lc.transferGroup({
      actor: owner.actor,
      group: { id: moving.id },
      newParentId: closed.id,
    });
    expect(detail.group!.sharedRunnersSetting).toBe("disabled_and_unoverridable");
    expect([await runners(moving.id), await runners(child.id)]).toEqual([
      "disabled_and_unoverridable",
      "disabled_and_unoverridable",
    ]);
  });

  it("on transfer under disabled_with_override: the group takes it, and below it only enabled groups close", async () => {
    const parent = await h.newGroup(owner);
    await update(parent.id, { sharedRunnersSetting: "disabled_with_override" });
    const moving = await h.newGroup(owner);
    const enabledChild = await sub(moving.id);
    const overridingChild = await sub(moving.id);
    await update(overridingChild.id, { sharedRunnersSetting: "disabled_with_override" });
    await lc.transferGroup({ actor: owner.actor, group: { id: moving.id }, newParentId: parent.id });
    expect([
      await runners(moving.id),
      await runners(enabledChild.id),
      await runners(overridingChild.id),
    ]).toEqual(["disabled_with_override", "disabled_and_unoverridable", "disabled_with_override"]);
  });

  it("on transfer, a group no more open than its new parent keeps its own setting", async () => {
    const parent = await h.newGroup(owner);
    await update(parent.id, { sharedRunnersSetting: "disabled_with_override" });
    const moving = await h.newGroup(owner);
    await update(moving.id, { sharedRunnersSetting: "disabled_and_unoverridable" });
    await lc.transferGroup({ actor: owner.actor, group: { id: moving.id }, newParentId: parent.id });
    expect(await runners(moving.id)).toBe("disabled_and_unoverridable");
  });

  it("on update, disabled_with_override on a group that had them enabled closes its enabled descendants", async () => {
    const g = await h.newGroup(owner);
    const enabledChild = await sub(g.id);
    const overridingChild = await sub(g.id);
    await update(g.id, { sharedRunnersSetting: "disabled_with_override" });
    // Now under a parent that allows override, a child may choose again.
    await update(overridingChild.id, { sharedRunnersSetting: "disabled_with_override" });
    expect([await runners(g.id), await runners(enabledChild.id), await runners(overridingChild.id)]).toEqual([
      "disabled_with_override",
      "disabled_and_unoverridable",
      "disabled_with_override",
    ]);
    // Set again while already disabled, it changes nothing below.
    await update(enabledChild.id, { sharedRunnersSetting: "enabled" });
    await update(g.id, { sharedRunnersSetting: "disabled_and_unoverridable" });
    await update(g.id, { sharedRunnersSetting: "disabled_with_override" });
    expect(await runners(enabledChild.id)).toBe("disabled_and_unoverridable");
  });
});
