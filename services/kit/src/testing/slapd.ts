import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Attribute, Change } from "ldapts";
import { adminClient, changeMember, ensureUnit, withAdmin } from "./slapd-admin";
import {
  SLAPD_ADMIN_DN,
  SLAPD_BASE,
  SLAPD_GROUP_BASE,
  SLAPD_PEOPLE_BASE,
  SLAPD_READER_DN,
  escapedPersonDn,
  groupAttributes,
  groupDn,
  personAttributes,
  seedEntries,
  toLdif,
  type SlapdGroup,
  type SlapdPerson,
} from "./slapd-seed";
import { adDatabaseConf, adGlobalConf } from "./slapd-ad";
import { SlapdLog } from "./slapd-log";
import { SLAPADD, SLAPD, ensureSlapdInstalled, freePort, waitUntilListening } from "./slapd-process";
import { makeTestCertificates } from "./slapd-tls";

export * from "./slapd-seed";
export { ensureSlapdInstalled } from "./slapd-process";

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
  /**
   * Adds a group; returns its DN. An AD `group`'s members must exist already (the server refuses a
   * dangling one, as AD does), so a loop of groups is closed with `addMember` afterwards.
   */
  addGroup(group: SlapdGroup): Promise<string>;
  /** Adds a member to the group `cn` (a DN, or a uid for a posixGroup). */
  addMember(cn: string, member: string): Promise<void>;
  removeMember(cn: string, member: string): Promise<void>;
  /** Replaces an attribute's values on an entry (no values: removes it). */
  replaceAttribute(dn: string, attribute: string, values: string[]): Promise<void>;
  deleteEntry(dn: string): Promise<void>;
  /**
   * Settings for one server of `CANOPY_LDAP_SERVERS` (GitLab's keys) that point at this slapd with
   * its service account, as an OpenLDAP (`active_directory: false`, `uid: uid`), or with
   * `activeDirectory` as Active Directory (`true`, `sAMAccountName`); `overrides` replace any of them.
   */
  serverConfig(overrides?: Record<string, unknown>): Record<string, unknown>;
  /** With `countSearches`: the search requests the server has served since it was first started. */
  readonly searches: number;
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
  /**
   * More people and groups, loaded offline with slapadd before the server starts, as the seeded
   * ones are: thousands in a second, where LDAP adds one at a time take a minute (benchmarks).
   */
  seed?: { people?: SlapdPerson[]; groups?: SlapdGroup[] };
  /** Run with `loglevel stats` and count the searches the server serves (`searches`). */
  countSearches?: boolean;
  /**
   * An Active Directory-like directory (slapd-ad.ts): people are also AD `user`s with a
   * `sAMAccountName`, groups of kind `group` are AD groups whose members the server gives `memberOf`,
   * and `serverConfig` defaults to `active_directory: true` and `uid: sAMAccountName`.
   */
  activeDirectory?: boolean;
}

const ADMIN_PASSWORD = "admin-secret";
const READER_PASSWORD = "reader-secret";

function slapdConf(
  dir: string,
  certs: ReturnType<typeof makeTestCertificates> | undefined,
  activeDirectory: boolean,
): string {
  const schemas = ["core", "cosine", "inetorgperson", "nis"];
  return [
    ...schemas.map((s) => `include /etc/ldap/schema/${s}.schema`),
    "modulepath /usr/lib/ldap",
    "moduleload back_mdb",
    ...(activeDirectory ? adGlobalConf(dir) : []),
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
    ...(activeDirectory ? adDatabaseConf() : []),
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
  const activeDirectory = options.activeDirectory ?? false;
  writeFileSync(conf, slapdConf(dir, certs, activeDirectory));
  writeFileSync(
    path.join(dir, "seed.ldif"),
    toLdif(seedEntries(READER_PASSWORD, options.seed, activeDirectory)),
  );
  execFileSync(SLAPADD, ["-q", "-f", conf, "-l", path.join(dir, "seed.ldif")], { stdio: "pipe" });

  const host = "127.0.0.1";
  const port = await freePort();
  const tlsPort = certs ? await freePort() : undefined;
  const urls = [`ldap://${host}:${port}/`, ...(tlsPort ? [`ldaps://${host}:${tlsPort}/`] : [])];
  let child: ChildProcess | undefined;
  // One log across restarts: the search count covers the server's whole life.
  const log = new SlapdLog();

  const start = async () => {
    if (child) return;
    // -d: stay in the foreground (so the harness owns the process); 0 logs nothing, stats one line
    // per operation (what `countSearches` reads).
    const level = options.countSearches ? "stats" : "0";
    const proc = spawn(SLAPD, ["-d", level, "-f", conf, "-h", urls.join(" ")], { stdio: "pipe" });
    proc.stderr.on("data", (d: Buffer) => log.write(d));
    proc.stdout.on("data", (d: Buffer) => log.write(d));
    const exited = new Promise<number | null>((resolve) => proc.once("exit", resolve));
    running.add(proc);
    child = proc;
    void exited.then(() => {
      running.delete(proc);
      if (child === proc) child = undefined;
    });
    await waitUntilListening(port, exited, () => log.text());
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
  const admin = () => adminClient(urls[0]!, ADMIN_PASSWORD);

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
          await client.add(dn, personAttributes(person, activeDirectory));
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
    get searches() {
      return log.searches;
    },
    serverConfig: (overrides = {}) => ({
      label: "Example LDAP",
      host,
      port,
      encryption: "plain",
      bind_dn: SLAPD_READER_DN,
      password: READER_PASSWORD,
      base: SLAPD_BASE,
      uid: activeDirectory ? "sAMAccountName" : "uid",
      group_base: SLAPD_GROUP_BASE,
      active_directory: activeDirectory,
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
