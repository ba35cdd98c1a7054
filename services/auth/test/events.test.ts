import {
  connectNats,
  createLogger,
  payloadOf,
  startBroadcastConsumer,
  type EventKind,
  type NatsConnection,
  type Subscription,
} from "@canopy/kit";
import { AUTH_EVENTS, auth, common, events } from "@canopy/protos";
import {
  createUser,
  waitFor,
  newSignedInUser,
  startHarness,
  type Harness,
  changeUserState,
  UserStateAction,
} from "./support";

// Every state change is an event on the deployment's stream (CANOPY_EVENT_STREAM; the test run's own),
// in an envelope that names the actor. Other
// services and every gateway replica read them; a revoked token must be on the stream before the
// RPC that revoked it returns, so no gateway keeps serving it from its cache. The user snapshots that
// UserCreated and UserUpdated carry are tested in user-snapshots.test.ts.
let h: Harness;
let nc: NatsConnection;
let subscription: Subscription;
const received: events.Event[] = [];

beforeAll(async () => {
  h = await startHarness();
  const log = createLogger("auth-events-test", "silent");
  nc = await connectNats(h.config.CANOPY_NATS_URL, log, "auth-events-test", h.service.stream);
  // Subscribed before anything happens: the consumer only delivers what is published from now on.
  subscription = await startBroadcastConsumer({
    nc,
    stream: h.service.stream,
    log,
    subjects: ["canopy.auth.>"],
    handle: (event) => void received.push(event),
  });
});
afterAll(async () => {
  await subscription.stop();
  await nc.drain();
  await h.stop();
});

/** The first received event of `kind` whose payload satisfies `match`, waiting up to `timeoutMs`. */
function eventOf<T>(kind: EventKind<T>, match: (payload: T) => boolean, timeoutMs = 5_000) {
  return waitFor(
    kind.type,
    () => {
      for (const event of received) {
        const payload = payloadOf(event, kind);
        if (payload !== undefined && match(payload)) return { event, payload };
      }
      return undefined;
    },
    timeoutMs,
  );
}

const byUser = (userId: number) => (p: { userId: number }) => p.userId === userId;

/**
 * The events that reached the stream while `call` ran, read straight from the stream once it
 * returned: what a command records must be published before it replies.
 */
async function publishedDuring(call: () => Promise<unknown>): Promise<events.Event[]> {
  const jsm = await nc.jetstreamManager();
  const stream = h.service.stream.name;
  const lastSeq = async () => (await jsm.streams.info(stream)).state.last_seq;
  const before = await lastSeq();
  await call();
  const after = await lastSeq();
  const found: events.Event[] = [];
  for (let seq = before + 1; seq <= after; seq++) {
    const message = await jsm.streams.getMessage(stream, { seq }).catch(() => undefined);
    if (message) found.push(events.Event.decode(message.data));
  }
  return found;
}

/** What every envelope carries besides its payload. */
function expectEnvelope(event: events.Event, kind: EventKind<unknown>, actor: common.Actor) {
  expect(event.type).toBe(kind.type);
  expect(event.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  expect(Math.abs(event.occurredAt!.getTime() - Date.now())).toBeLessThan(30_000);
  expect(event.actor).toEqual(actor);
}

describe("user events", () => {
  it("CreateUser emits UserCreated, on the stream before it replies", async () => {
    let user!: auth.User;
    const published = await publishedDuring(async () => (user = await createUser(h)));
    const expected = {
      userId: user.id,
      username: user.username,
      user: expect.objectContaining({ userId: user.id }),
    };
    expect(published.flatMap((e) => payloadOf(e, AUTH_EVENTS.userCreated) ?? [])).toContainEqual(expected);
    const { event, payload } = await eventOf(AUTH_EVENTS.userCreated, byUser(user.id));
    expect(payload).toEqual(expected);
    expectEnvelope(event, AUTH_EVENTS.userCreated, h.admin);
  });

  it("UpdateUser emits UserUpdated with the new username", async () => {
    const user = await createUser(h);
    const renamed = `${user.username}_renamed`;
    await h.rpc.updateUser({ actor: h.admin, id: user.id, attributes: { username: renamed } });
    const { event, payload } = await eventOf(AUTH_EVENTS.userUpdated, byUser(user.id));
    expect(payload).toEqual({
      userId: user.id,
      username: renamed,
      user: expect.objectContaining({ userId: user.id, username: renamed }),
    });
    expectEnvelope(event, AUTH_EVENTS.userUpdated, h.admin);
  });

  it("a state action emits UserUpdated carrying the new state, block then unblock", async () => {
    const user = await createUser(h);
    const inState = (state: string) => (p: events.UserUpdated) =>
      p.userId === user.id && p.user?.state === state;
    await changeUserState(h.service, h.admin, user.id, UserStateAction.USER_STATE_ACTION_BLOCK);
    const blocked = await eventOf(AUTH_EVENTS.userUpdated, inState("blocked"));
    expectEnvelope(blocked.event, AUTH_EVENTS.userUpdated, h.admin);

    await changeUserState(h.service, h.admin, user.id, UserStateAction.USER_STATE_ACTION_UNBLOCK);
    const active = await eventOf(AUTH_EVENTS.userUpdated, inState("active"));
    expectEnvelope(active.event, AUTH_EVENTS.userUpdated, h.admin);
  });

  it("DeleteUser emits UserDeleted", async () => {
    const user = await createUser(h);
    await h.rpc.deleteUser({ actor: h.admin, id: user.id });
    const { event, payload } = await eventOf(AUTH_EVENTS.userDeleted, byUser(user.id));
    expect(payload).toEqual({ userId: user.id });
    expectEnvelope(event, AUTH_EVENTS.userDeleted, h.admin);
  });
});

describe("token events", () => {
  const revokedPayload = (token: { id: number; userId: number }): events.TokenRevoked => ({
    tokenId: token.id,
    userId: token.userId,
    kind: common.TokenKind.TOKEN_KIND_PERSONAL_ACCESS,
  });

  it("RevokePersonalAccessToken emits TokenRevoked carrying the token, its owner and the actor", async () => {
    const user = await newSignedInUser(h);
    await h.rpc.revokePersonalAccessToken({ actor: user.actor, id: user.token.id });
    const { event, payload } = await eventOf(AUTH_EVENTS.tokenRevoked, (p) => p.tokenId === user.token.id);
    expect(payload).toEqual(revokedPayload(user.token));
    expectEnvelope(event, AUTH_EVENTS.tokenRevoked, user.actor);
  });

  it("has TokenRevoked on the stream when the RPC returns", async () => {
    const user = await newSignedInUser(h);
    const published = await publishedDuring(() =>
      h.rpc.revokePersonalAccessToken({ actor: h.admin, id: user.token.id }),
    );
    expect(published.flatMap((e) => payloadOf(e, AUTH_EVENTS.tokenRevoked) ?? [])).toContainEqual(
      revokedPayload(user.token),
    );
  });

  it("emits nothing for a refused or repeated revocation", async () => {
    const [owner, other] = await Promise.all([newSignedInUser(h), newSignedInUser(h)]);
    await expect(
      h.rpc.revokePersonalAccessToken({ actor: other.actor, id: owner.token.id }),
    ).rejects.toThrow();
    await h.rpc.revokePersonalAccessToken({ actor: other.actor, id: other.token.id });
    await h.rpc.revokePersonalAccessToken({ actor: h.admin, id: other.token.id });
    // The relay publishes in commit order; once this marker is here, anything recorded before it is too.
    const marker = await newSignedInUser(h);
    await h.rpc.revokePersonalAccessToken({ actor: marker.actor, id: marker.token.id });
    await eventOf(AUTH_EVENTS.tokenRevoked, (p) => p.tokenId === marker.token.id);

    const revokedIds = received.flatMap((e) => payloadOf(e, AUTH_EVENTS.tokenRevoked)?.tokenId ?? []);
    expect(revokedIds.filter((id) => id === owner.token.id)).toEqual([]);
    expect(revokedIds.filter((id) => id === other.token.id)).toEqual([other.token.id]);
  });

  it("emits nothing for a refused user write", async () => {
    const [target, regular] = await Promise.all([createUser(h), newSignedInUser(h)]);
    await expect(h.rpc.deleteUser({ actor: regular.actor, id: target.id })).rejects.toThrow();
    await expect(
      changeUserState(h.service, regular.actor, target.id, UserStateAction.USER_STATE_ACTION_BLOCK),
    ).rejects.toThrow();
    const marker = await createUser(h);
    await eventOf(AUTH_EVENTS.userCreated, byUser(marker.id));
    const about = received.filter((e) => {
      const p = payloadOf(e, AUTH_EVENTS.userDeleted) ?? payloadOf(e, AUTH_EVENTS.userUpdated);
      return p?.userId === target.id;
    });
    expect(about).toEqual([]);
  });
});
