/**
 * GitLab picks the hooks an event reaches when the event happens (WebHookService runs after the
 * change commits): a hook made afterwards never gets it. Canopy's consumer applies an event later:
 * by milliseconds usually, by minutes after an outage or with a backlog. The hooks it reaches must
 * still be those that existed when it happened. Here the consumer is held back by a lock on its copy
 * of the memberships while the hook is made.
 */
import {
  addMember,
  hooksKnowGroup,
  newGroup,
  newHook,
  newUser,
  startHooksStack,
  waitFor,
  type HooksStack,
} from "./support";

let stack: HooksStack;

beforeAll(async () => {
  stack = await startHooksStack();
});
afterAll(() => stack?.stop());

it("an event from before a hook was made does not reach it, even when applied after", async () => {
  const owner = await newUser(stack);
  const group = await newGroup(stack, owner);
  const [early, late] = [await newUser(stack), await newUser(stack)];
  await hooksKnowGroup(stack, group.id);

  const lock = await stack.db.connect();
  let hook: Awaited<ReturnType<typeof newHook>>;
  try {
    await lock.query("BEGIN");
    await lock.query("LOCK TABLE group_members IN EXCLUSIVE MODE");
    await addMember(stack, group, early, 30);
    // The consumer has the early member's event and waits for the lock.
    await waitFor("the consumer blocked on the lock", async () => {
      const { rows } = await stack.db.query(
        "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
      );
      return rows.length > 0;
    });
    hook = await newHook(stack, group, owner, { member_events: true, push_events: false });
  } finally {
    await lock.query("COMMIT");
    lock.release();
  }
  await addMember(stack, group, late, 30);

  // One hook's deliveries go out in stream order: once the later member's has arrived, the earlier
  // member's would have too.
  const path = new URL(hook.url).pathname;
  await stack.receiver.waitFor(path, 1, 30_000);
  expect(stack.receiver.at(path).map((r) => r.json.user_id)).toEqual([late.id]);
});
