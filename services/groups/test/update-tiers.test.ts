/** PUT /groups/:id on the free plan: the higher-tier keys are not declared there, so they change nothing. */
import { startHarness, type Harness } from "./support";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ CANOPY_PLAN: "free" });
});
afterAll(() => h.stop());

it("ignores the CI minutes limits (no 403 either), membership_lock, prevent_forking_outside_group and file_template_project_id", async () => {
  const owner = await h.newUser();
  const g = await h.newGroup(owner);
  const d = await h.rpc.updateGroup({
    actor: owner.actor,
    group: { id: g.id },
    attributes: {
      sharedRunnersMinutesLimit: 10,
      extraSharedRunnersMinutesLimit: 3,
      membershipLock: true,
      preventForkingOutsideGroup: true,
      fileTemplateProjectId: 9,
      description: "free",
    },
  });
  expect(d.group!.description).toBe("free");
  const { rows } = await h.db.query(
    `SELECT shared_runners_minutes_limit, extra_shared_runners_minutes_limit, membership_lock,
            prevent_forking_outside_group, file_template_project_id FROM namespaces WHERE id = $1`,
    [g.id],
  );
  expect(rows[0]).toEqual({
    shared_runners_minutes_limit: null,
    extra_shared_runners_minutes_limit: null,
    membership_lock: false,
    prevent_forking_outside_group: false,
    file_template_project_id: null,
  });
});
