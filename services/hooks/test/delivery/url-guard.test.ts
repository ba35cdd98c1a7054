import {
  checkHookUrl,
  GUARD_REASONS,
  LOCAL_ADDRESS_REASONS as R,
  planConnection,
  type OutboundRequestSettings,
  type Resolver,
  type UrlGuardOptions,
} from "../../src/delivery";

const DEFAULTS: OutboundRequestSettings = {
  allowLocalRequestsFromWebHooksAndServices: false,
  outboundLocalRequestsWhitelist: [],
  dnsRebindingProtectionEnabled: true,
  denyAllRequestsExceptAllowed: false,
};

// Names resolve through this table; anything else does not resolve.
const DNS: Record<string, string[]> = {
  "public.test": ["93.184.216.34"],
  "private.test": ["10.1.2.3"],
  "mixed.test": ["93.184.216.34", "192.168.1.2"],
  "mapped.test": ["::ffff:127.0.0.1"],
  "v6.test": ["2606:2800:220:1:248:1893:25c8:1946", "93.184.216.34", "2001:db8::2"],
};
const table: Resolver = async (name) => {
  const answers = DNS[name];
  if (!answers) throw new Error("getaddrinfo ENOTFOUND");
  return answers.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
};

const options = (settings: Partial<OutboundRequestSettings> = {}, extra: Partial<UrlGuardOptions> = {}) => ({
  settings: { ...DEFAULTS, ...settings },
  resolve: table,
  localAddresses: ["0.0.0.0", "::", "127.0.0.1", "::1", "172.17.0.5"],
  ...extra,
});

const reasonAt = async (
  url: string,
  settings?: Partial<OutboundRequestSettings>,
  extra?: Partial<UrlGuardOptions>,
) => {
  const result = await planConnection(url, options(settings, extra));
  return result.ok ? "ok" : result.reason;
};

describe("the URL itself", () => {
  it.each([
    ["ftp://public.test/", GUARD_REASONS.schemes],
    ["javascript://localhost:80/t.git%0aalert(1)", GUARD_REASONS.schemes],
    ["public.test/hook", GUARD_REASONS.schemes],
    ["http://public.test/a\nb", GUARD_REASONS.invalidUri],
    ["http://:8080", GUARD_REASONS.invalidUri],
    ["http:/localhost:9201", GUARD_REASONS.invalidUri],
    ["https://public.test:65536/path", GUARD_REASONS.invalidUri],
    ["http://-oProxyCommand=whoami/a", GUARD_REASONS.hostname],
    [`http://${"a".repeat(1025)}/`, GUARD_REASONS.hostTooLong],
  ])("%s is refused: %s", async (url, reason) => {
    expect(await reasonAt(url)).toBe(reason);
  });

  it("accepts a public https URL with a port and credentials", async () => {
    expect(await reasonAt("https://user:pass@public.test:8443/hook")).toBe("ok");
  });
});

describe("local addresses (allow_local_requests_from_web_hooks_and_services off)", () => {
  it.each([
    ["http://127.0.0.1/", R.localhost],
    ["http://0.0.0.0/", R.localhost],
    ["http://[::]/", R.localhost],
    ["http://[::1]/", R.localhost],
    ["http://172.17.0.5/", R.localhost],
    ["http://127.0.0.2/", R.loopback],
    ["http://[::ffff:127.0.0.2]/", R.loopback],
    ["http://[::ffff:7f00:2]/", R.loopback],
    ["https://2130706433:65535/", R.localhost],
    ["https://0177.0.0.2/", R.loopback],
    ["https://0x7f.2/", R.loopback],
    ["https://017700000002/", R.loopback],
    ["http://10.0.0.2/", R.localNetwork],
    ["http://172.16.0.2/", R.localNetwork],
    ["http://192.168.1.2/", R.localNetwork],
    ["http://[::ffff:c0a8:102]/", R.localNetwork],
    ["http://[fc00:bf8b:e62c:abcd:abcd:aaaa:aaaa:aaaa]/", R.localNetwork],
    ["http://[feef::1]/", R.localNetwork],
    ["http://169.254.169.254/", R.linkLocal],
    ["http://[fe80::c800:eff:fe74:8]/", R.linkLocal],
    ["http://[::ffff:a9fe:a9fe]/", R.linkLocal],
    ["http://100.64.127.127/", R.sharedAddress],
    ["http://255.255.255.255/", R.limitedBroadcast],
    ["http://0xffffffff/", R.limitedBroadcast],
    ["http://4294967295/", R.limitedBroadcast],
    ["http://private.test/", R.localNetwork],
    ["http://mixed.test/", R.localNetwork],
    ["http://mapped.test/", R.localhost],
  ])("%s: %s", async (url, reason) => {
    expect(await reasonAt(url)).toBe(reason);
  });

  it("reads the machine's own addresses as localhost by default", async () => {
    const result = await planConnection("http://127.0.0.1/", { settings: DEFAULTS, resolve: table });
    expect(result).toEqual({ ok: false, reason: R.localhost });
  });

  it("resolves real names: localhost is local", async () => {
    const result = await planConnection("http://localhost:9/", { settings: DEFAULTS });
    expect(result).toEqual({ ok: false, reason: R.localhost });
  });

  it("lets everything through when local requests are allowed", async () => {
    for (const url of [
      "http://127.0.0.1/",
      "http://10.0.0.2/",
      "http://169.254.169.254/",
      "http://private.test/",
    ]) {
      expect(await reasonAt(url, { allowLocalRequestsFromWebHooksAndServices: true })).toBe("ok");
    }
  });
});

describe("name resolution", () => {
  it("refuses a name that does not resolve when connecting", async () => {
    expect(await reasonAt("http://nowhere.test/")).toBe(GUARD_REASONS.unresolvable);
  });

  it("accepts it at save time, and when connecting without rebinding protection", async () => {
    expect(await checkHookUrl("http://nowhere.test/", options())).toEqual({ ok: true });
    const plan = await planConnection(
      "http://nowhere.test/",
      options({ dnsRebindingProtectionEnabled: false }),
    );
    expect(plan).toMatchObject({ ok: true, plan: { candidates: null } });
  });

  it("refuses it at save time when deny-all is on", async () => {
    expect(
      await checkHookUrl("http://nowhere.test/", options({ denyAllRequestsExceptAllowed: true })),
    ).toEqual({
      ok: false,
      reason: GUARD_REASONS.unresolvable,
    });
  });

  it("pins the connection to the first address of each family", async () => {
    const result = await planConnection("https://v6.test/hook", options());
    expect(result).toMatchObject({
      ok: true,
      plan: {
        port: 443,
        candidates: [
          { address: "2606:2800:220:1:248:1893:25c8:1946", family: 6 },
          { address: "93.184.216.34", family: 4 },
        ],
      },
    });
  });

  it("still checks the addresses, but connects by name, without rebinding protection", async () => {
    expect(await reasonAt("http://private.test/", { dnsRebindingProtectionEnabled: false })).toBe(
      R.localNetwork,
    );
    const ok = await planConnection("http://public.test/", options({ dnsRebindingProtectionEnabled: false }));
    expect(ok).toMatchObject({ ok: true, plan: { candidates: null } });
  });
});

describe("the allowlist (outbound_local_requests_whitelist)", () => {
  it.each([
    ["http://10.0.0.2/", ["10.0.0.2"]],
    ["http://10.9.8.7/", ["10.0.0.0/8"]],
    ["http://10.0.0.2:8080/", ["10.0.0.2:8080"]],
    ["http://[::1]:80/", ["[::1]:80"]],
    ["http://[::ffff:10.0.0.2]/", ["10.0.0.2"]],
    ["http://10.0.0.2/", ["::ffff:10.0.0.0/104"]],
    ["http://private.test/", ["private.test"]],
    ["http://PRIVATE.test:81/", ["private.test:81"]],
    ["http://private.test/", ["10.1.2.3"]],
  ])("%s passes with %j", async (url, list) => {
    expect(await reasonAt(url, { outboundLocalRequestsWhitelist: list })).toBe("ok");
  });

  it.each([
    ["http://10.0.0.2:8081/", ["10.0.0.2:8080"], R.localNetwork],
    ["http://10.0.0.3/", ["10.0.0.2"], R.localNetwork],
    ["http://sub.private.test/", ["private.test"], GUARD_REASONS.unresolvable],
    ["http://private.test/", ["private.test:8080"], R.localNetwork],
  ])("%s is still refused with %j", async (url, list, reason) => {
    expect(await reasonAt(url, { outboundLocalRequestsWhitelist: list })).toBe(reason);
  });

  it("trusts an allowlisted domain by name, even unresolvable, and does not pin it", async () => {
    const plan = await planConnection(
      "http://nowhere.test/",
      options({ outboundLocalRequestsWhitelist: ["nowhere.test"] }),
    );
    expect(plan).toMatchObject({ ok: true, plan: { candidates: null } });
  });
});

describe("deny_all_requests_except_allowed", () => {
  const denyAll = { denyAllRequestsExceptAllowed: true };

  it("refuses public addresses not on the list", async () => {
    expect(await reasonAt("http://public.test/", denyAll)).toBe(GUARD_REASONS.notOnAllowList);
    expect(await reasonAt("http://93.184.216.34/", denyAll)).toBe(GUARD_REASONS.notOnAllowList);
  });

  it("lets listed hosts and the instance itself through", async () => {
    expect(
      await reasonAt("http://public.test/", { ...denyAll, outboundLocalRequestsWhitelist: ["public.test"] }),
    ).toBe("ok");
    expect(
      await reasonAt("http://93.184.216.34/", {
        ...denyAll,
        outboundLocalRequestsWhitelist: ["93.184.216.0/24"],
      }),
    ).toBe("ok");
    const instance = { instanceUrl: "https://public.test" };
    expect(await reasonAt("https://public.test/api", denyAll, instance)).toBe("ok");
    expect(await reasonAt("http://public.test/api", denyAll, instance)).toBe(GUARD_REASONS.notOnAllowList);
  });
});

describe("the instance's own URL", () => {
  it("is allowed even on a local address, on its exact scheme, host and port only", async () => {
    const extra = { instanceUrl: "http://127.0.0.1:8080" };
    expect(await reasonAt("http://127.0.0.1:8080/api/v4", {}, extra)).toBe("ok");
    expect(await reasonAt("http://127.0.0.1:8081/api/v4", {}, extra)).toBe(R.localhost);
  });
});

describe("save-time check", () => {
  it("answers with the same reasons as the connection check", async () => {
    expect(await checkHookUrl("http://10.0.0.2/", options())).toEqual({ ok: false, reason: R.localNetwork });
    expect(await checkHookUrl("gopher://public.test/", options())).toEqual({
      ok: false,
      reason: GUARD_REASONS.schemes,
    });
    expect(await checkHookUrl("https://public.test/", options())).toEqual({ ok: true });
  });
});
