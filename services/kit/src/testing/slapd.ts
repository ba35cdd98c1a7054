import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Attribute, Change, Client } from "ldapts";
import {
  SLAPD_ADMIN_DN,
  SLAPD_BASE,
  SLAPD_GROUP_BASE,
  SLAPD_PEOPLE_BASE,
  SLAPD_READER_DN,
  escapedPersonDn,
  groupAttributes,
  groupDn,
  memberAttributeOf,
  personAttributes,
  seedEntries,
  toLdif,
  type SlapdGroup,
  type SlapdGroupKind,
  type SlapdPerson,
} from "./slapd-seed";
import { makeTestCertificates } from "./slapd-tls";

export * from "./slapd-seed";

/**
 * A throwaway OpenLDAP server for tests: Debian's slapd with a slapd.conf of its own (`-f`), an mdb
 * database in a temporary directory and a free loopback port, seeded offline with slapadd (see
 * slapd-seed.ts), so starting one takes a fraction of a second. `stop()` and `start()` take it away
 * and bring it back on the same port with the same data, for tests of a directory that goes down.
 */
export interface Slapd {
  /** `ldap://127.0.0.1:<port>` */
  url: string;
  host: string;
  port: number;
  /** With `tls`: the port of ldaps:// (simple_tls); start_tls works on `port`. */
  tlsPort?: number;
  /** With `tls`: the CA file that verifies the server's certificate (issued for 127.0.0.1 and localhost). */
  caFile?: string;
  /** The read-only service account, and its password: Canopy's `bind_dn` and `password`. */
  bindDn: string;
  password: string;
  /** The harness's own account, which writes. */
  adminDn: string;
  adminPassword: string;
  base: string;
  peopleBase: string;
  groupBase: string;
  /** Adds people (one connection for all of them); returns their DNs. */
  addPeople(people: SlapdPerson[]): Promise<string[]>;
  addPerson(person: SlapdPerson): Promise<string>;
  addGroup(group: SlapdGroup): Promise<string>;
  /** Adds a member to the group `cn` (a DN, or a uid for a posixGroup). */
  addMember(cn: string, member: string): Promise<void>;
  removeMember(cn: string, member: string): Promise<void>;
  /** Replaces an attribute's values on an entry (no values: removes it). */
  replaceAttribute(dn: string, attribute: string, values: string[]): Promise<void>;
  deleteEntry(dn: string): Promise<void>;
  /**
   * Settings for one server of `CANOPY_LDAP_SERVERS` (GitLab's keys) that point at this slapd as an
   * OpenLDAP (not Active Directory) with its service account; `overrides` replace any of them.
   */
  serverConfig(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** Stops the server; the data stays for `start()`. */
  stop(): Promise<void>;
  /** Starts it again, on the same ports with the same data. */
  start(): Promise<void>;
  /** Stops it for good and removes its directory. */
  close(): Promise<void>;
}

export interface SlapdOptions {
  /** Also serve ldaps:// and StartTLS with a throwaway CA (see `caFile`). */
  tls?: boolean;
}

const SLAPD = "/usr/sbin/slapd";
const SLAPADD = "/usr/sbin/slapadd";
const ADMIN_PASSWORD = "admin-secret";
const READER_PASSWORD = "reader-secret";

/** Installs Debian's slapd and ldap-utils when missing (as root with apt-get); a clear error if it cannot. */
export function ensureSlapdInstalled(): void {
  if (existsSync(SLAPD) && existsSync(SLAPADD)) return;
  const canInstall = process.getuid?.() === 0 && existsSync("/usr/bin/apt-get");
  if (!canInstall)
    throw new Error(
      "the LDAP tests need OpenLDAP's slapd: apt-get install slapd ldap-utils (as root), or run npm test as root",
    );
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (...args: string[]) => execFileSync("apt-get", args, { env, stdio: "pipe" });
  try {
    apt("install", "-y", "-qq", "slapd", "ldap-utils");
  } catch {
    apt("update", "-qq");
    apt("install", "-y", "-qq", "slapd", "ldap-utils");
  }
  if (!existsSync(SLAPD)) throw new Error("apt-get installed slapd but /usr/sbin/slapd is missing");
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function slapdConf(dir: string, certs?: ReturnType<typeof makeTestCertificates>): string {
  const schemas = ["core", "cosine", "inetorgperson", "nis"];
  return [
    ...schemas.map((s) => `include /etc/ldap/schema/${s}.schema`),
    "modulepath /usr/lib/ldap",
    "moduleload back_mdb",
    `pidfile ${dir}/slapd.pid`,
    `argsfile ${dir}/slapd.args`,
    // The default 500 entries would cut a large group's search short.
    "sizelimit unlimited",
    ...(certs
      ? [
          `TLSCACertificateFile ${certs.caFile}`,
          `TLSCertificateFile ${certs.certFile}`,
          `TLSCertificateKeyFile ${certs.keyFile}`,
        ]
      : []),
    "database mdb",
    "maxsize 1073741824",
    `suffix "${SLAPD_BASE}"`,
    `rootdn "${SLAPD_ADMIN_DN}"`,
    `rootpw ${ADMIN_PASSWORD}`,
    `directory ${dir}/data`,
    "index objectClass,uid,cn,member,uniqueMember,memberUid eq",
    // People may bind with their password; nobody may read it.
    "access to attrs=userPassword by self write by anonymous auth by * none",
    "access to * by * read",
    "",
  ].join("\n");
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});

/** Starts a seeded throwaway slapd (see `Slapd`). */
export async function startSlapd(options: SlapdOptions = {}): Promise<Slapd> {
  ensureSlapdInstalled();
  const dir = mkdtempSync(path.join(tmpdir(), "canopy-slapd-"));
  mkdirSync(path.join(dir, "data"));
  const certs = options.tls ? makeTestCertificates(dir) : undefined;
  const conf = path.join(dir, "slapd.conf");
  writeFileSync(conf, slapdConf(dir, certs));
  writeFileSync(path.join(dir, "seed.ldif"), toLdif(seedEntries(READER_PASSWORD)));
  execFileSync(SLAPADD, ["-q", "-f", conf, "-l", path.join(dir, "seed.ldif")], { stdio: "pipe" });

  const host = "127.0.0.1";
  const port = await freePort();
  const tlsPort = certs ? await freePort() : undefined;
  const urls = [`ldap://${host}:${port}/`, ...(tlsPort ? [`ldaps://${host}:${tlsPort}/`] : [])];
  let child: ChildProcess | undefined;

  const start = async () => {
    if (child) return;
    // -d 0: stay in the foreground (so the harness owns the process) and log nothing.
    const proc = spawn(SLAPD, ["-d", "0", "-f", conf, "-h", urls.join(" ")], { stdio: "pipe" });
    let output = "";
    proc.stderr.on("data", (d: Buffer) => (output += d.toString()));
    proc.stdout.on("data", (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
    running.add(proc);
    child = proc;
    void exited.then(() => {
      running.delete(proc);
      if (child === proc) child = undefined;
    });
    await waitUntilListening(port, exited, () => output);
  };

  const stop = async () => {
    const proc = child;
    if (!proc) return;
    const exited = new Promise((resolve) => proc.once("exit", resolve));
    proc.kill("SIGTERM");
    const killer = setTimeout(() => proc.kill("SIGKILL"), 3000);
    await exited;
    clearTimeout(killer);
  };

  await start();
  const admin = () => adminClient(urls[0]!);

  const slapd: Slapd = {
    url: `ldap://${host}:${port}`,
    host,
    port,
    tlsPort,
    caFile: certs?.caFile,
    bindDn: SLAPD_READER_DN,
    password: READER_PASSWORD,
    adminDn: SLAPD_ADMIN_DN,
    adminPassword: ADMIN_PASSWORD,
    base: SLAPD_BASE,
    peopleBase: SLAPD_PEOPLE_BASE,
    groupBase: SLAPD_GROUP_BASE,
    addPeople: (people) =>
      withAdmin(admin, async (client) => {
        const dns: string[] = [];
        for (const person of people) {
          if (person.ou) await ensureUnit(client, person.ou);
          const dn = escapedPersonDn(person);
          await client.add(dn, personAttributes(person));
          dns.push(dn);
        }
        return dns;
      }),
    addPerson: async (person) => (await slapd.addPeople([person]))[0]!,
    addGroup: (group) =>
      withAdmin(admin, async (client) => {
        await client.add(groupDn(group.cn), groupAttributes(group));
        return groupDn(group.cn);
      }),
    addMember: (cn, member) => changeMember(admin, cn, member, "add"),
    removeMember: (cn, member) => changeMember(admin, cn, member, "delete"),
    replaceAttribute: (dn, attribute, values) =>
      withAdmin(admin, (client) =>
        client.modify(
          dn,
          new Change({ operation: "replace", modification: new Attribute({ type: attribute, values }) }),
        ),
      ),
    deleteEntry: (dn) => withAdmin(admin, (client) => client.del(dn)),
    serverConfig: (overrides = {}) => ({
      label: "Example LDAP",
      host,
      port,
      encryption: "plain",
      bind_dn: SLAPD_READER_DN,
      password: READER_PASSWORD,
      base: SLAPD_BASE,
      uid: "uid",
      group_base: SLAPD_GROUP_BASE,
      active_directory: false,
      timeout: 5,
      ...overrides,
    }),
    stop,
    start,
    close: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return slapd;
}

async function waitUntilListening(port: number, exited: Promise<number | null>, output: () => string) {
  let gone: number | null | undefined;
  void exited.then((code) => (gone = code));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (gone !== undefined) throw new Error(`slapd exited (${gone}) before listening:\n${output()}`);
    if (await accepts(port)) return;
    if (Date.now() > deadline) throw new Error(`slapd did not listen on ${port} within 10 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

async function adminClient(url: string): Promise<Client> {
  const client = new Client({ url, timeout: 10_000, connectTimeout: 5_000 });
  await client.bind(SLAPD_ADMIN_DN, ADMIN_PASSWORD);
  return client;
}

async function withAdmin<T>(open: () => Promise<Client>, work: (client: Client) => Promise<T>): Promise<T> {
  const client = await open();
  try {
    return await work(client);
  } finally {
    await client.unbind().catch(() => undefined);
  }
}

async function ensureUnit(client: Client, ou: string) {
  const dn = `ou=${ou},${SLAPD_PEOPLE_BASE}`;
  const { searchEntries } = await client
    .search(dn, { scope: "base", attributes: ["ou"] })
    .catch(() => ({ searchEntries: [] }));
  if (!searchEntries.length) await client.add(dn, { objectClass: ["top", "organizationalUnit"], ou });
}

async function changeMember(
  open: () => Promise<Client>,
  cn: string,
  member: string,
  operation: "add" | "delete",
) {
  await withAdmin(open, async (client) => {
    const dn = groupDn(cn);
    const { searchEntries } = await client.search(dn, { scope: "base", attributes: ["objectClass"] });
    const classes = [searchEntries[0]?.objectClass ?? []].flat().map(String);
    const kind = (["groupOfNames", "groupOfUniqueNames", "posixGroup"] as const).find((k) =>
      classes.some((c) => c.toLowerCase() === k.toLowerCase()),
    );
    if (!kind) throw new Error(`${dn} is not a group the harness knows`);
    const type = memberAttributeOf(kind satisfies SlapdGroupKind);
    await client.modify(
      dn,
      new Change({ operation, modification: new Attribute({ type, values: [member] }) }),
    );
  });
}
