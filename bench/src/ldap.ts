#!/usr/bin/env node
// `npm run bench:ldap`: what LDAP group sync costs for a big directory group. A throwaway slapd
// (@canopy/kit/testing) is loaded offline with BENCH_LDAP_MEMBERS (5,000) people and one groupOfNames
// listing them all; the stack starts as `npm start` does with CANOPY_LDAP_SERVERS pointing at it (no
// scheduled sync: only the bench's requests sync); every person gets a Canopy user with its LDAP
// identity (ldap-dataset.ts, written straight into the schemas: seeding is not measured); a group
// is linked to the directory group at Developer. Then, each one `POST /groups/:id/ldap_sync`:
//   first sync     the group holds only its creator: 5,000 members to add
//   unchanged      the same directory again: nothing to change
//   one leaver     one person removed from the directory group (an LDAP modify): one member to remove
// Each is timed from the request to the sync being `ready` (the groups service applied the command
// and answered) with the group's memberships as the directory says (counted in the groups schema),
// and split at the sync's own timestamps: claimed by a worker, command applied by the groups service
// (its transaction's start), answer taken. Directory queries are the search requests slapd served
// during the sync (its `loglevel stats` log), beside the ldap service's own count (its log line).
// Between syncs the bench waits for the other services' copies of the memberships to catch up, so
// the next sync is not measured against a backlog of 5,000 member events. A report, not a test.
//
// BENCH_LDAP_MEMBERS (5000); BENCH_KEEP=1 keeps the database.
import { loadavg } from "node:os";
import { ldapServersEnv, personDn, startSlapd, type Slapd } from "@canopy/kit/testing";
import { Client } from "pg";
import { seedLdapUsers, type LdapPerson } from "./ldap-dataset";
import { waitForLdapCopies, waitForSync, type SyncTimes } from "./ldap-sync";
import { intFromEnv, say, seconds, table } from "./report";
import { num, verdictOf, writeResult, type Figure } from "./results";
import { runBench, type BenchStack } from "./stack";

const MEMBERS = intFromEnv("BENCH_LDAP_MEMBERS", 5_000);
const CN = "bench-everyone";
const PROVIDER = "ldapmain";
const DEVELOPER = 30;
/** The issue's targets on this machine. */
const TARGET_MS = { first: 10_000, incremental: 1_000 };
const UNLIMITED = "1000000000";

async function api(stack: BenchStack, method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.url}/api/v4${path}`, {
    method,
    headers: { "PRIVATE-TOKEN": stack.rootToken, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined, headers: res.headers };
}

async function ok(stack: BenchStack, method: string, path: string, body?: unknown) {
  const res = await api(stack, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.json)}`);
  return res;
}

/** The directory's people, DNs as the harness writes them. */
const people: LdapPerson[] = Array.from({ length: MEMBERS }, (_, i) => {
  const uid = `ldapbench${String(i + 1).padStart(5, "0")}`;
  return { uid, dn: personDn(uid) };
});

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(" / ");

interface Row extends SyncTimes {
  name: string;
  searches: number;
  targetMs?: number;
}

async function main(stack: BenchStack, slapd: Slapd, started: number) {
  say(`stack ready (${seconds(started)}), load average ${load()}`);
  const seeding = Date.now();
  const ids = await seedLdapUsers(stack.databaseUrl, PROVIDER, people);
  const { json: group } = await ok(stack, "POST", "/groups", { name: "LDAP Bench", path: "ldap-bench" });
  const groupId = Number((group as { id: number }).id);
  // The ldap service links a group it has a copy of (the groups service's event): retried until then.
  for (let i = 0; ; i++) {
    const res = await api(stack, "POST", `/groups/${groupId}/ldap_group_links`, {
      cn: CN,
      group_access: DEVELOPER,
      provider: PROVIDER,
    });
    if (res.status === 201) break;
    if (i >= 200) throw new Error(`linking the group: ${res.status} ${JSON.stringify(res.json)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  say(`${MEMBERS} users with LDAP identities and the link made in ${seconds(seeding)}`);

  const db = new Client({ connectionString: stack.databaseUrl });
  await db.connect();
  const rows: Row[] = [];
  try {
    const sync = async (name: string, expected: number, targetMs?: number) => {
      const before = slapd.searches;
      const times = await waitForSync(db, groupId, expected, async () => {
        const res = await ok(stack, "POST", `/groups/${groupId}/ldap_sync`);
        if (res.status !== 202) throw new Error(`POST ldap_sync answered ${res.status}`);
      });
      // slapd's log lines come on their own pipe: a moment for the last ones.
      await new Promise((r) => setTimeout(r, 300));
      rows.push({ name, ...times, searches: slapd.searches - before, targetMs });
      const settled = Date.now();
      await waitForLdapCopies(db, groupId, expected);
      say(`${name}: ${times.wallMs} ms; the other services' copies caught up ${seconds(settled)} later`);
    };
    await sync(`first sync (${MEMBERS.toLocaleString("en-US")} to add)`, MEMBERS + 1, TARGET_MS.first);
    await sync("unchanged directory", MEMBERS + 1);
    const leaver = people[Math.floor(MEMBERS / 2)]!;
    await slapd.removeMember(CN, leaver.dn);
    await sync("one leaver (1 to remove)", MEMBERS, TARGET_MS.incremental);
    const gone = await db.query("SELECT 1 FROM groups.members WHERE namespace_id = $1 AND user_id = $2", [
      groupId,
      ids.get(leaver.uid),
    ]);
    if (gone.rowCount) throw new Error("the leaver is still a member after the sync");
  } finally {
    await db.end();
  }
  const { headers } = await ok(stack, "GET", `/groups/${groupId}/members?per_page=1`);
  say(`GET /groups/:id/members X-Total after the syncs: ${headers.get("x-total")} (expected ${MEMBERS})`);
  const logged = queriesLogged(stack.tail());
  report(rows, logged);
  say(`\nload average at the end ${load()}; ${seconds(started)} in all`);
  writeResult({ bench: "ldap", settings: { members: MEMBERS }, figures: figuresOf(rows, logged) });
}

function figuresOf(rows: Row[], logged: number[]): Figure[] {
  return rows.map((r, i) => {
    const searches = `${r.searches} directory searches${logged.length === rows.length ? ` (${logged[i]} logged)` : ""}`;
    const figure = `${num(r.wallMs / 1000, 2)} s, ${searches}`;
    if (!r.targetMs) return { case: r.name, figure };
    return {
      case: r.name,
      figure,
      value: r.wallMs,
      unit: "ms",
      target: `≤ ${num(r.targetMs / 1000)} s`,
      verdict: verdictOf(r.wallMs <= r.targetMs),
    };
  });
}

/** The ldap service's own count of each sync's searches ("ldap sync read the directory", queries). */
function queriesLogged(output: string): number[] {
  const lines = output.split("\n").filter((l) => l.includes("ldap sync read the directory"));
  return lines.map((l) => Number(/"queries":(\d+)/.exec(l)?.[1] ?? NaN));
}

function report(rows: Row[], logged: number[]) {
  const ms = (n: number) => `${Math.round(n).toLocaleString("en-US")} ms`;
  say("");
  table([
    ["sync", "wall time", "claim", "read + send", "apply", "answer", "searches", "logged", "target", ""],
    ...rows.map((r, i) => [
      r.name,
      ms(r.wallMs),
      ms(r.claimedMs),
      ms(r.appliedMs - r.claimedMs),
      ms(r.answeredMs - r.appliedMs),
      ms(r.wallMs - r.answeredMs),
      String(r.searches),
      // The tail of the stack's output may have lost the earliest lines: then n/a.
      String(logged.length === rows.length ? logged[i] : "n/a"),
      r.targetMs ? `<= ${ms(r.targetMs)}` : "",
      r.targetMs ? (r.wallMs <= r.targetMs ? "ok" : "MISSED") : "",
    ]),
  ]);
  say(
    "\nclaim: request to a worker's claim; read + send: the directory read, the users matched and the" +
      " command recorded, relayed and delivered to the groups service; apply: its transaction (members" +
      " written with their events) until the answer's transaction in the ldap service starts; answer: the" +
      " rest, until the bench saw the sync ready with the members in place. searches: what slapd served" +
      " during the sync; logged: the ldap service's own count.",
  );
}

const started = Date.now();
say(`bench:ldap: one group linked to an LDAP group of ${MEMBERS} members, load average ${load()}`);
void (async () => {
  const seeding = Date.now();
  const slapd = await startSlapd({
    seed: {
      people: people.map((p) => ({ uid: p.uid })),
      groups: [{ cn: CN, kind: "groupOfNames", members: people.map((p) => p.dn) }],
    },
    countSearches: true,
  });
  say(`slapd loaded with ${MEMBERS} people and the group in ${seconds(seeding)}`);
  runBench(
    "bench:ldap",
    {
      CANOPY_LDAP_SERVERS: ldapServersEnv({ main: slapd.serverConfig({ timeout: 30 }) }),
      // Only the bench's requests sync (no scheduled run racing them), and no user check either.
      CANOPY_LDAP_SYNC_INTERVAL_SECONDS: "0",
      CANOPY_LDAP_USER_CHECK_INTERVAL_SECONDS: "0",
      CANOPY_RATE_LIMIT_AUTHENTICATED: UNLIMITED,
      CANOPY_RATE_LIMIT_UNAUTHENTICATED: UNLIMITED,
    },
    (stack) => main(stack, slapd, started).finally(() => slapd.close()),
  );
})();
