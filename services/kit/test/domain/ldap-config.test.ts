import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { z } from "zod";
import {
  ConfigError,
  DEFAULT_LDAP_ATTRIBUTES,
  ldapServersSetting,
  loadConfig,
  parseLdapServers,
} from "@canopy/kit";

// CANOPY_LDAP_SERVERS: GitLab's keys and defaults, every problem at once, never a password in a message.
const minimal = { host: "ldap.example.org", base: "dc=example,dc=org", uid: "uid" };
const parse = (servers: unknown) => parseLdapServers(JSON.stringify(servers));

test("no LDAP when unset or blank", () => {
  expect(parseLdapServers(undefined)).toEqual({ servers: [], problems: [] });
  expect(parseLdapServers("  ")).toEqual({ servers: [], problems: [] });
  expect(parse({})).toEqual({ servers: [], problems: [] });
});

test("GitLab's defaults fill what is left out", () => {
  const { servers, problems } = parse({ main: minimal });
  expect(problems).toEqual([]);
  expect(servers).toEqual([
    {
      id: "main",
      provider: "ldapmain",
      label: "LDAP",
      host: "ldap.example.org",
      port: 389,
      encryption: "plain",
      verifyCertificates: true,
      ca: undefined,
      caFile: undefined,
      bindDn: undefined,
      password: undefined,
      base: "dc=example,dc=org",
      uid: "uid",
      userFilter: undefined,
      groupBase: undefined,
      attributes: DEFAULT_LDAP_ATTRIBUTES,
      timeout: 10,
      lowercaseUsernames: false,
      activeDirectory: true,
      blockAutoCreatedUsers: false,
    },
  ]);
});

test("every key is read; ids become lower-case providers; base is normalized", () => {
  const caFile = path.join(tmpdir(), `ca-${process.pid}.pem`);
  writeFileSync(caFile, "-----BEGIN CERTIFICATE-----\n");
  const { servers, problems } = parse({
    main: minimal,
    Secondary_AD: {
      label: "Corporate AD",
      host: "ad.example.org",
      encryption: "simple_tls",
      verify_certificates: false,
      ca_file: caFile,
      bind_dn: "CN=svc,DC=corp,DC=example",
      password: "hunter2",
      base: "DC=Corp, DC=Example",
      uid: "sAMAccountName",
      user_filter: "(memberOf=CN=staff,DC=corp,DC=example)",
      group_base: "OU=Groups,DC=corp,DC=example",
      attributes: { username: "sAMAccountName", email: ["mail", "userPrincipalName"], name: "displayName" },
      timeout: 3,
      lowercase_usernames: true,
      active_directory: true,
      // GitLab keys Canopy does not act on are accepted.
      admin_group: "admins",
      // Read: a user made at first sign-in then waits for approval.
      block_auto_created_users: true,
    },
  });
  expect(problems).toEqual([]);
  expect(servers[1]).toMatchObject({
    id: "Secondary_AD",
    provider: "ldapsecondary_ad",
    label: "Corporate AD",
    port: 636,
    encryption: "simple_tls",
    verifyCertificates: false,
    ca: "-----BEGIN CERTIFICATE-----\n",
    base: "dc=corp,dc=example",
    attributes: {
      username: ["sAMAccountName"],
      email: ["mail", "userPrincipalName"],
      name: ["displayName"],
      firstName: ["givenName"],
      lastName: ["sn"],
    },
    timeout: 3,
    lowercaseUsernames: true,
    blockAutoCreatedUsers: true,
  });
});

test("GitLab's older `method` spellings mean encryption", () => {
  const { servers } = parse({ a: { ...minimal, method: "tls" }, b: { ...minimal, method: "ssl" } });
  expect(servers.map((s) => [s.encryption, s.port])).toEqual([
    ["start_tls", 389],
    ["simple_tls", 636],
  ]);
});

test("every problem is listed, each naming its server and key", () => {
  const { problems } = parse({
    main: {
      host: "",
      port: 70000,
      encryption: "ssl3",
      base: "not a dn",
      user_filter: "(uid=",
      group_base: "ou=groups,",
      timeout: 0,
      attributes: { username: [], colour: "cn" },
      verify_certificates: "yes",
      ca_file: "/nonexistent/ca.pem",
      typo_key: 1,
    },
    "bad-id": minimal,
  });
  expect(problems).toEqual(
    expect.arrayContaining([
      "main.host: host is missing",
      expect.stringMatching(/^main\.port: /),
      expect.stringMatching(/^main\.encryption: /),
      "main.base: base is not a valid DN",
      "main.uid is missing",
      "main.user_filter: user_filter is not a valid LDAP filter",
      "main.group_base: group_base is not a valid DN",
      expect.stringMatching(/^main\.timeout: /),
      expect.stringMatching(/^main\.attributes\.username: /),
      "main.attributes: unknown key(s) colour",
      expect.stringMatching(/^main\.verify_certificates: /),
      "main: unknown key(s) typo_key",
      "bad-id: a server id is letters, digits and _ only",
    ]),
  );
  expect(problems).toHaveLength(13);
});

test("a missing ca_file is reported with the server's other problems", () => {
  expect(parse({ main: { ...minimal, ca_file: "/nonexistent/ca.pem" } }).problems).toEqual([
    "main.ca_file cannot be read",
  ]);
});

test("ids that differ only in case would share a provider", () => {
  expect(parse({ Main: minimal, main: minimal }).problems).toEqual([
    "two servers have the provider name ldapmain (ids differ only in case)",
  ]);
});

test("not JSON, or not an object: one problem that never quotes the text", () => {
  const broken = '{"main": {"password": "s3cr3t-value", }}';
  const { problems } = parseLdapServers(broken);
  expect(problems).toHaveLength(1);
  expect(problems[0]).toMatch(/^is not valid JSON/);
  expect(problems[0]).not.toContain("s3cr3t");
  expect(parseLdapServers("[1]").problems).toEqual([
    'must be a JSON object keyed by server id, e.g. {"main": {...}}',
  ]);
});

test("a password never appears in a problem", () => {
  const { problems } = parse({ main: { ...minimal, password: 12345, bind_dn: "s3cr3t" } });
  expect(problems.join("\n")).not.toMatch(/12345|s3cr3t/);
  expect(problems).toHaveLength(2);
});

test("as a setting of a service's schema, a service fails to start listing every problem", () => {
  const schema = z.object({ CANOPY_LDAP_SERVERS: ldapServersSetting });
  expect(loadConfig(schema, {}).CANOPY_LDAP_SERVERS).toEqual([]);
  const env = {
    CANOPY_LDAP_SERVERS: JSON.stringify({ main: { ...minimal, port: "x", password: "pw-secret" } }),
  };
  let error: unknown;
  try {
    loadConfig(schema, env);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).problems).toEqual([
    expect.stringMatching(/^CANOPY_LDAP_SERVERS is invalid: main\.port: /),
  ]);
  expect((error as Error).message).not.toContain("pw-secret");
});
