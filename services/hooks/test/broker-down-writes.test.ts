/**
 * A write while the broker is down: its transaction commits and its event waits in the outbox, so
 * the API answers the write's success (not a 503 the client would retry into a duplicate), and the
 * event reaches the group's hooks once the broker is back.
 */
import { OwnNats } from "@canopy/kit/testing";
import { newGroup, newHook, newUser, startHooksStack, unique, type HooksStack } from "./support";

jest.setTimeout(120_000);

let nats: OwnNats;
let stack: HooksStack;

beforeAll(async () => {
  nats = await OwnNats.start();
  stack = await startHooksStack({ env: { CANOPY_NATS_URL: nats.url } });
});
afterAll(async () => {
  await stack?.stop();
  await nats?.dispose();
});

it("answers a committed write while NATS is stopped, and delivers its event after NATS starts", async () => {
  const owner = await newUser(stack);
  const parent = await newGroup(stack, owner);
  const path = `/${unique("r")}`;
  await newHook(stack, parent, owner, { url: stack.receiver.url + path, subgroup_events: true });

  await nats.stop();
  const name = unique("down-").toLowerCase();
  const res = await stack.gw.post("/api/v4/groups", {
    token: owner.token,
    json: { name, path: name, parent_id: parent.id, visibility: "private" },
  });
  expect({ status: res.status, body: res.body }).toMatchObject({ status: 201, body: { path: name } });
  expect(stack.receiver.at(path)).toHaveLength(0);

  await nats.start();
  const [delivery] = await stack.receiver.waitFor(path, 1, 60_000);
  expect(delivery!.json).toMatchObject({ event_name: "subgroup_create", name, path: name });
});
