/**
 * The LDAP scenario's pieces: people and a posixGroup in the suite's slapd, users holding their
 * identities, a group linked to the directory group, and the ldap service's sync state read from its
 * table (the API shows only the last sync's status).
 */
import { normalizeDn } from "@canopy/kit";
import { personDn, unique } from "@canopy/kit/testing";
import { until, type World } from "./world";

export interface SyncState {
  status: string;
  generation: number;
  error: string | null;
}

export async function syncState(world: World, groupId: number): Promise<SyncState | undefined> {
  const [row] = await world.sql<SyncState>(
    `SELECT status, generation::int, error FROM ldap.group_syncs WHERE group_id = ${Number(groupId)}`,
  );
  return row;
}

/** Waits until a sync later than generation `after` has finished (ready or failed); its state. */
export async function syncFinished(world: World, groupId: number, after: number, timeoutMs = 60_000) {
  let state: SyncState | undefined;
  await until(
    `an ldap sync of group ${groupId} after generation ${after}`,
    async () => {
      state = await syncState(world, groupId);
      return !!state && state.generation > after && ["ready", "failed"].includes(state.status);
    },
    timeoutMs,
  );
  return state!;
}

/** Asks for a sync (202); the generation it will have to beat. */
export async function askSync(world: World, groupId: number): Promise<number> {
  const before = (await syncState(world, groupId))?.generation ?? 0;
  const res = await world.api("POST", `/api/v4/groups/${groupId}/ldap_sync`);
  if (res.status !== 202) throw new Error(`ldap_sync: ${res.status} ${JSON.stringify(res.json)}`);
  return before;
}

/** People in the directory, each a Canopy user holding the identity; their user ids by uid. */
export async function ldapPeople(world: World, count: number): Promise<Map<string, number>> {
  const uids = Array.from({ length: count }, () => unique("p").toLowerCase());
  await world.slapd.addPeople(uids.map((uid) => ({ uid })));
  const ids = new Map<string, number>();
  for (const uid of uids) {
    const res = await world.api("POST", "/api/v4/users", {
      body: {
        username: uid,
        email: `${uid}@example.com`,
        name: uid,
        password: unique("pw-pw-"),
        skip_confirmation: true,
        provider: "ldapmain",
        extern_uid: personDn(uid),
      },
    });
    if (res.status !== 201) throw new Error(`POST /users: ${res.status} ${JSON.stringify(res.json)}`);
    ids.set(uid, res.json.id);
  }
  // The ldap service learns identities from auth's events: every one must have arrived.
  const dnKeys = uids.map((uid) => `'${normalizeDn(personDn(uid)).replace(/'/g, "''")}'`).join(",");
  await until(
    "the ldap service's copies of the identities",
    async () =>
      (
        await world.sql<{ n: number }>(
          `SELECT count(*)::int AS n FROM ldap.identities WHERE dn_key IN (${dnKeys})`,
        )
      )[0]!.n === count,
    30_000,
  );
  return ids;
}

/** Direct members of a group as user id -> access level. */
export async function directMembers(world: World, groupId: number): Promise<Map<number, number>> {
  const res = await world.api("GET", `/api/v4/groups/${groupId}/members?per_page=100`);
  if (res.status !== 200) throw new Error(`members: ${res.status}`);
  return new Map((res.json as { id: number; access_level: number }[]).map((m) => [m.id, m.access_level]));
}
