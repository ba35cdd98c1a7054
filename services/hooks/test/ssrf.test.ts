/**
 * The SSRF guard over HTTP (§2.9), with allow_local_requests_from_web_hooks_and_services off as
 * GitLab ships it: internal addresses in every spelling are refused when a hook is saved (422
 * "Invalid url given"), and at delivery (a hook saved while they were allowed, a redirect from an
 * allowed receiver) the worker logs GitLab's reason and nothing reaches the address. Turning the
 * setting on, or listing the address, lets the same URLs through.
 *
 * Only loopback addresses are ever delivered to: the private, link-local, shared and broadcast
 * forms are checked at save time, which resolves nothing and connects nowhere.
 */
import {
  addMember,
  newGroup,
  newHook,
  newUser,
  Receiver,
  startHooksStack,
  unique,
  waitFor,
  type Group,
  type HooksStack,
  type User,
} from "./support";

let stack: HooksStack;
let owner: User;
let landing: Receiver;
const port = () => new URL(stack.receiver.url).port;

beforeAll(async () => {
  stack = await startHooksStack({ allowLocal: false });
  owner = await newUser(stack);
  landing = await Receiver.start();
  stack.receiver.answer = (r) =>
    r.url.startsWith("/redirect")
      ? { status: 307, headers: { Location: `${landing.url}/landing` } }
      : { status: 200, body: "ok" };
});
afterAll(async () => {
  await landing?.stop();
  await stack?.stop();
});

interface OutboundSettings {
  allow_local_requests_from_web_hooks_and_services?: boolean;
  outbound_local_requests_whitelist?: string[];
  deny_all_requests_except_allowed?: boolean;
}

/** Changes the settings and waits until the hooks service has them. */
async function setOutbound(s: OutboundSettings) {
  const json = {
    allow_local_requests_from_web_hooks_and_services: false,
    outbound_local_requests_whitelist: [],
    deny_all_requests_except_allowed: false,
    ...s,
  };
  const res = await stack.gw.put("/api/v4/application/settings", { token: stack.rootToken, json });
  expect(res.status).toBe(200);
  await waitFor("the hooks service's settings", () => {
    const now = stack.hooks.deps.settings.current();
    return (
      now.allowLocalRequestsFromWebHooksAndServices ===
        json.allow_local_requests_from_web_hooks_and_services &&
      now.outboundLocalRequestsWhitelist.join() === json.outbound_local_requests_whitelist.join() &&
      now.denyAllRequestsExceptAllowed === json.deny_all_requests_except_allowed
    );
  });
}

const create = (group: Group, url: string) =>
  stack.gw.post(`/api/v4/groups/${group.id}/hooks`, {
    token: owner.token,
    json: { url, member_events: true },
  });

/** The log rows of a hook, straight from the table (internal_error_message is not in the API). */
async function logsOf(hookId: number) {
  const { rows } = await stack.db.query<{ response_status: string; internal_error_message: string | null }>(
    "SELECT response_status, internal_error_message FROM hook_logs WHERE hook_id = $1 ORDER BY id",
    [hookId],
  );
  return rows;
}

const LOCALHOST = "URL is blocked: Requests to localhost are not allowed";
const LOOPBACK = "URL is blocked: Requests to loopback addresses are not allowed";

describe("with local requests off", () => {
  beforeAll(() => setOutbound({}));

  it.each([
    ["loopback", "http://127.0.0.1/"],
    ["loopback, not the machine's", "http://127.0.0.2:8080/x"],
    ["the unspecified address", "http://0.0.0.0/"],
    ["private 10/8", "http://10.0.0.1/"],
    ["private 172.16/12", "http://172.16.5.4/"],
    ["private 192.168/16", "https://192.168.1.1/hook"],
    ["link-local (cloud metadata)", "http://169.254.169.254/latest/meta-data"],
    ["shared 100.64/10", "http://100.64.0.1/"],
    ["limited broadcast", "http://255.255.255.255/"],
    ["IPv6 loopback", "http://[::1]/"],
    ["IPv6 loopback, long form", "http://[0:0:0:0:0:0:0:1]/"],
    ["IPv6 unspecified", "http://[::]/"],
    ["IPv6 link-local", "http://[fe80::1]/"],
    ["IPv6 unique local", "http://[fd00::1]/"],
    ["IPv6 site-local", "http://[fec0::1]/"],
    ["IPv4-mapped IPv6 loopback", "http://[::ffff:127.0.0.1]/"],
    ["IPv4-mapped IPv6 private", "http://[::ffff:10.0.0.1]/"],
    ["decimal", "http://2130706433/"],
    ["octal", "http://0177.0.0.1/"],
    ["hexadecimal", "http://0x7f000001/"],
    ["short form", "http://127.1/"],
    ["a name resolving to loopback", "http://localhost/"],
    ["userinfo before a loopback host", "http://example.com@127.0.0.1/"],
  ])("refuses %s at save: %s", async (_, url) => {
    const group = await newGroup(stack, owner);
    const res = await create(group, url);
    expect([res.status, res.body]).toEqual([422, { error: "Invalid url given" }]);
  });

  it("refuses an update to a local URL with the update's answer", async () => {
    await setOutbound({ outbound_local_requests_whitelist: [`127.0.0.1:${port()}`] });
    const group = await newGroup(stack, owner);
    const hook = await newHook(stack, group, owner);
    const res = await stack.gw.put(`/api/v4/groups/${group.id}/hooks/${hook.id}`, {
      token: owner.token,
      json: { url: "http://[::ffff:7f00:2]/" },
    });
    expect([res.status, res.body]).toEqual([422, { error: "Invalid url given" }]);
    // A URL whose variables point inside: the interpolated URL's reason, on the model's attribute
    // (render_validation_error!, the update's other shape).
    const moved = await stack.gw.put(`/api/v4/groups/${group.id}/hooks/${hook.id}`, {
      token: owner.token,
      json: { url: "http://{host}/", url_variables: [{ key: "host", value: "169.254.169.254" }] },
    });
    expect([moved.status, moved.body]).toEqual([
      422,
      { message: { interpolated_url: ["is blocked: Requests to the link local network are not allowed"] } },
    ]);
  });
});

describe("at delivery", () => {
  it("logs GitLab's reason and sends nothing to hooks saved while local requests were allowed", async () => {
    await setOutbound({ allow_local_requests_from_web_hooks_and_services: true });
    const group = await newGroup(stack, owner);
    const p = port();
    const cases: [string, string][] = [
      [`http://127.0.0.1:${p}/a`, LOCALHOST],
      [`http://localhost:${p}/b`, LOCALHOST],
      [`http://2130706433:${p}/c`, LOCALHOST],
      [`http://0177.0.0.1:${p}/d`, LOCALHOST],
      [`http://[::1]:${p}/e`, LOCALHOST],
      [`http://127.0.0.2:${p}/f`, LOOPBACK],
      [`http://[::ffff:127.0.0.3]:${p}/g`, LOOPBACK],
    ];
    const hooks: number[] = [];
    for (const [url] of cases) {
      const res = await create(group, url);
      expect(res.status).toBe(201);
      hooks.push((res.body as { id: number }).id);
    }
    await setOutbound({});
    const before = stack.receiver.received.length;
    await addMember(stack, group, await newUser(stack), 30, owner);
    for (const [i, [, reason]] of cases.entries()) {
      await waitFor(`the log of ${cases[i]![0]}`, async () => (await logsOf(hooks[i]!)).length > 0);
      // Refused before connecting, and not retried: a blocked URL stays blocked.
      expect(await logsOf(hooks[i]!)).toEqual([
        { response_status: "internal error", internal_error_message: reason },
      ]);
    }
    const shown = await stack.gw.get(`/api/v4/groups/${group.id}/hooks/${hooks[0]}/events`, {
      token: owner.token,
    });
    expect((shown.body as { response_status: string }[]).map((l) => l.response_status)).toEqual([
      "internal error",
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect(stack.receiver.received.length).toBe(before);
  });

  it("checks every redirect hop: an allowed receiver cannot send a delivery on to an internal one", async () => {
    // The receiver is listed; the one it redirects to (another port on 127.0.0.1) is not.
    await setOutbound({ outbound_local_requests_whitelist: [`127.0.0.1:${port()}`] });
    const group = await newGroup(stack, owner);
    const path = `/redirect-${unique("r")}`;
    const hook = await newHook(stack, group, owner, { url: stack.receiver.url + path, member_events: true });
    await addMember(stack, group, await newUser(stack), 30, owner);
    await stack.receiver.waitFor(path, 1);
    await waitFor("the log row", async () => (await logsOf(hook.id)).length > 0);
    expect(await logsOf(hook.id)).toEqual([
      { response_status: "internal error", internal_error_message: LOCALHOST },
    ]);
    expect(landing.received).toHaveLength(0);

    // Listing the second receiver too lets the same redirect through, body and method kept (307).
    await setOutbound({
      outbound_local_requests_whitelist: [`127.0.0.1:${port()}`, `127.0.0.1:${new URL(landing.url).port}`],
    });
    await addMember(stack, group, await newUser(stack), 30, owner);
    const [landed] = await landing.waitFor("/landing", 1);
    expect(landed!.method).toBe("POST");
    expect(landed!.json).toMatchObject({ event_name: "user_add_to_group" });
  });

  it("lets the same URLs through with the setting on, and denies all but the list with deny-all", async () => {
    await setOutbound({ allow_local_requests_from_web_hooks_and_services: true });
    const group = await newGroup(stack, owner);
    // Saved only: no event of theirs is on, so nothing is ever sent to these.
    for (const url of ["http://127.0.0.2:9/", "http://[::1]:9/", "http://localhost:9/", "http://10.0.0.1/"]) {
      const res = await stack.gw.post(`/api/v4/groups/${group.id}/hooks`, {
        token: owner.token,
        json: { url, push_events: false },
      });
      expect(res.status).toBe(201);
    }
    const path = `/redirect-${unique("on")}`;
    await newHook(stack, group, owner, { url: stack.receiver.url + path, member_events: true });
    const landed = landing.received.length;
    await addMember(stack, group, await newUser(stack), 30, owner);
    await landing.waitFor("/landing", landed + 1);

    await setOutbound({
      allow_local_requests_from_web_hooks_and_services: true,
      deny_all_requests_except_allowed: true,
    });
    const denied = await create(group, `${stack.receiver.url}/denied`);
    expect([denied.status, denied.body]).toEqual([422, { error: "Invalid url given" }]);
    await setOutbound({
      allow_local_requests_from_web_hooks_and_services: true,
      deny_all_requests_except_allowed: true,
      outbound_local_requests_whitelist: [`127.0.0.1:${port()}`],
    });
    expect((await create(group, `${stack.receiver.url}/listed`)).status).toBe(201);
  });
});
