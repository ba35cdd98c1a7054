import {
  ApplicationSettingsView,
  connectNats,
  createLogger,
  DEFAULT_APPLICATION_SETTINGS,
  openSettingsBucket,
  payloadOf,
  SETTINGS_KEY,
  startBroadcastConsumer,
  type NatsConnection,
  type PromiseClient,
  type Subscription,
} from "@canopy/kit";
import { AUTH_EVENTS, common, events, settings, SETTINGS_IDEMPOTENT_METHODS } from "@canopy/protos";
import {
  failure,
  newSignedInUser,
  startHarness,
  startService,
  status,
  testEnv,
  unique,
  waitFor,
  type Harness,
} from "./support";
import { mirrorSettings } from "../src/commands/mirror-settings";
import { takeSettingsTurn } from "../../../jest/settings-turn";

// GET/PUT /application/settings as the auth service answers them, and the way other services read
// them: each change is an event carrying the whole snapshot and a KV entry every replica watches.
// This file is the only one that changes the settings (other files share the schema), and it only
// changes settings that nothing else in the suite depends on.
type Client = PromiseClient<typeof settings.SettingsServiceService>;
const log = createLogger("settings-test", "silent");
let h: Harness;
let client: Client;
let nc: NatsConnection;
let subscription: Subscription;
let endTurn: () => Promise<void>;
const received: events.Event[] = [];

const change = (changes: settings.ApplicationSettingsChanges, actor = h.admin) =>
  client.updateApplicationSettings(settings.UpdateApplicationSettingsRequest.fromPartial({ actor, changes }));
const read = (actor = h.admin) => client.getApplicationSettings({ actor });
/** Every setting back to GitLab's default, for the next file that takes a turn. */
const defaultsAsChanges = (): settings.ApplicationSettingsChanges => {
  const { version: _v, outboundLocalRequestsWhitelist, ...flat } = DEFAULT_APPLICATION_SETTINGS;
  return { ...flat, outboundLocalRequestsWhitelist: { values: outboundLocalRequestsWhitelist } };
};
const anonymous = common.Actor.fromPartial({});
const withoutTimes = ({ createdAt: _c, updatedAt: _u, ...rest }: settings.ApplicationSettings) => rest;

beforeAll(async () => {
  h = await startHarness();
  endTurn = await takeSettingsTurn(h.db);
  client = h.service.client(settings.SettingsServiceService, { idempotent: SETTINGS_IDEMPOTENT_METHODS });
  nc = await connectNats(h.config.CANOPY_NATS_URL, log, "settings-test", h.service.stream);
  subscription = await startBroadcastConsumer({
    nc,
    stream: h.service.stream,
    log,
    subjects: [AUTH_EVENTS.applicationSettingsUpdated.subject],
    handle: (event) => void received.push(event),
  });
}, 60_000);
afterAll(async () => {
  await change(defaultsAsChanges());
  await endTurn();
  await subscription.stop();
  await nc.drain();
  await h.stop();
});

test("a new instance has GitLab's defaults, and signup_enabled false", async () => {
  const s = await read();
  expect(withoutTimes(s)).toEqual({ ...DEFAULT_APPLICATION_SETTINGS, version: s.version });
  expect(s.version).toBeGreaterThanOrEqual(1);
  expect(s.createdAt).toBeInstanceOf(Date);
});

test("only administrators read or change them", async () => {
  const user = await newSignedInUser(h);
  expect((await failure(read(user.actor))).code).toBe(status.PERMISSION_DENIED);
  expect((await failure(change({ signupEnabled: true }, user.actor))).code).toBe(status.PERMISSION_DENIED);
  expect((await failure(read(anonymous))).code).toBe(status.UNAUTHENTICATED);
  expect((await failure(change({ deletionAdjournedPeriod: 3 }, anonymous))).code).toBe(
    status.UNAUTHENTICATED,
  );
  expect((await read()).signupEnabled).toBe(false);
});

test("an update changes what it names, keeps the rest, and moves the version on", async () => {
  const before = await read();
  const after = await change({
    deletionAdjournedPeriod: 30,
    defaultGroupVisibility: "internal",
    outboundLocalRequestsWhitelist: { values: ["10.0.0.0/8", "hooks.internal:8080", "[::1]:443"] },
    dnsRebindingProtectionEnabled: false,
  });
  expect(withoutTimes(after)).toEqual({
    ...withoutTimes(before),
    version: before.version + 1,
    deletionAdjournedPeriod: 30,
    defaultGroupVisibility: "internal",
    outboundLocalRequestsWhitelist: ["10.0.0.0/8", "hooks.internal:8080", "[::1]:443"],
    dnsRebindingProtectionEnabled: false,
  });
  expect(await read()).toEqual(after);
  // An empty list clears the allowlist; an absent one leaves it alone.
  expect((await change({ signupEnabled: false })).outboundLocalRequestsWhitelist).toHaveLength(3);
  expect(
    (await change({ outboundLocalRequestsWhitelist: { values: [] } })).outboundLocalRequestsWhitelist,
  ).toEqual([]);
});

test.each<[string, settings.ApplicationSettingsChanges, Record<string, string[]>]>([
  [
    "deletion_adjourned_period 0",
    { deletionAdjournedPeriod: 0 },
    { deletion_adjourned_period: ["must be greater than 0"] },
  ],
  [
    "deletion_adjourned_period 91",
    { deletionAdjournedPeriod: 91 },
    { deletion_adjourned_period: ["must be less than or equal to 90"] },
  ],
  [
    "two_factor_grace_period -1",
    { twoFactorGracePeriod: -1 },
    { two_factor_grace_period: ["must be greater than or equal to 0"] },
  ],
  [
    "an unknown visibility",
    { defaultProjectVisibility: "secret" },
    { default_project_visibility: ["is not included in the list"] },
  ],
  [
    "1001 allowlist entries",
    { outboundLocalRequestsWhitelist: { values: Array.from({ length: 1001 }, (_, i) => `h${i}.example`) } },
    { outbound_local_requests_whitelist: ["is too long (maximum is 1000 entries)"] },
  ],
  [
    "a 260-character entry",
    { outboundLocalRequestsWhitelist: { values: [`${"a".repeat(256)}.example`] } },
    { outbound_local_requests_whitelist: ["entries cannot be larger than 255 characters"] },
  ],
  [
    "a unicode entry",
    { outboundLocalRequestsWhitelist: { values: ["bücher.example"] } },
    { outbound_local_requests_whitelist: ["unicode domains should use IDNA encoding"] },
  ],
  [
    "an entry with HTML",
    { outboundLocalRequestsWhitelist: { values: ["<b>host</b>"] } },
    { outbound_local_requests_whitelist: ["entries cannot contain HTML tags"] },
  ],
])("%s is refused with GitLab's message and changes nothing", async (_name, changes, fieldErrors) => {
  const before = await read();
  // A valid change alongside must not be saved either.
  const f = await failure(change({ ...changes, signupEnabled: !before.signupEnabled }));
  expect(f.code).toBe(status.INVALID_ARGUMENT);
  expect(f.fieldErrors).toEqual(fieldErrors);
  expect(await read()).toEqual(before);
});

test("each change is published with the whole snapshot", async () => {
  const marker = `${unique("host-")}.example`;
  const updated = await change({ outboundLocalRequestsWhitelist: { values: [marker] } });
  const payload = await waitFor("ApplicationSettingsUpdated", () =>
    received
      .map((e) => payloadOf(e, AUTH_EVENTS.applicationSettingsUpdated))
      .find((p) => p?.settings?.outboundLocalRequestsWhitelist.includes(marker)),
  );
  expect(payload.settings).toEqual(updated);
});

test("two replicas and two readers converge through the KV bucket", async () => {
  const second = await startService(testEnv(h.rootToken));
  const secondClient: Client = second.client(settings.SettingsServiceService, {
    idempotent: SETTINGS_IDEMPOTENT_METHODS,
  });
  const readerNc = await connectNats(h.config.CANOPY_NATS_URL, log, "settings-reader", h.service.stream);
  const bucket = h.config.CANOPY_SETTINGS_BUCKET;
  const views = await Promise.all([
    ApplicationSettingsView.open(await openSettingsBucket(nc, bucket), log),
    ApplicationSettingsView.open(await openSettingsBucket(readerNc, bucket), log),
  ]);
  try {
    // A view opened now already holds the current snapshot.
    const start = await read();
    for (const view of views) expect(view.current()).toEqual(start);
    // Updates through both replicas at once: every reader ends on the last committed snapshot.
    const updateThrough = (c: Client, days: number) =>
      c.updateApplicationSettings(
        settings.UpdateApplicationSettingsRequest.fromPartial({
          actor: h.admin,
          changes: { deletionAdjournedPeriod: days },
        }),
      );
    await Promise.all(
      [20, 21, 22, 23, 24, 25].map((d, i) => updateThrough(i % 2 ? secondClient : client, d)),
    );
    const last = await read();
    expect(last.version).toBe(start.version + 6);
    for (const view of views)
      await waitFor("view", () => (view.current().version === last.version ? true : undefined), 5_000);
    for (const view of views) expect(view.current()).toEqual(last);

    // A bucket holding another history (say, the database was restored) is put right by the
    // next pass, though its version is higher.
    const kv = await openSettingsBucket(nc, bucket);
    await kv.put(
      SETTINGS_KEY,
      settings.ApplicationSettings.encode({
        ...last,
        version: last.version + 100,
        signupEnabled: true,
      }).finish(),
    );
    await waitFor("foreign snapshot", () => (views[0]!.current().signupEnabled ? true : undefined), 5_000);
    await mirrorSettings(h.service.deps);
    for (const view of views)
      await waitFor("repair", () => (view.current().version === last.version ? true : undefined), 5_000);
    for (const view of views) expect(view.current()).toEqual(last);
  } finally {
    await Promise.all(views.map((v) => v.stop()));
    await readerNc.drain();
    secondClient.close();
    await second.stop();
  }
});
