/**
 * The world of the Groups API permission matrix (groups-permission-matrix.test.ts), built once on a
 * database of its own (so every list and every X-Total is exactly what the model says): a public, an
 * internal and a private root, each with a subgroup of the same visibility, and for each of them
 * users holding each access level directly on the root, directly on the subgroup, and through a
 * share of the root (members of a private group the root is shared with, capped by the link).
 * Everything is made through the API, as root, the way a client would.
 */
import { randomBytes } from "node:crypto";
import { throwawayDatabase, type ThrowawayDatabase } from "@canopy/kit/testing";
import { png } from "../../services/groups/test/update-support";
import { createToken, createUser, startStack, unique, type Reply, type Stack } from "./support";

export const LEVELS = [10, 20, 30, 40, 50] as const;
export const LEVEL_NAMES: Record<number, string> = {
  10: "Guest",
  20: "Reporter",
  30: "Developer",
  40: "Maintainer",
  50: "Owner",
};
export type Vis = "public" | "internal" | "private";
export const VISIBILITIES: Vis[] = ["public", "internal", "private"];
export const VIS_LEVEL: Record<Vis, number> = { private: 0, internal: 10, public: 20 };

export interface WGroup {
  id: number;
  label: string;
  path: string;
  fullPath: string;
  visibility: Vis;
  parentId?: number;
}

export type CallerKind = "anonymous" | "user" | "admin" | "blocked";
export interface Caller {
  label: string;
  kind: CallerKind;
  token?: string;
  userId: number;
  external?: boolean;
}

export interface Membership {
  userId: number;
  groupId: number;
  level: number;
}
export interface Link {
  sharedId: number;
  withId: number;
  level: number;
}

/** What the write cases of one target need besides the target. */
export interface Family {
  root: WGroup;
  sub: WGroup;
  /** direct[L] on the root (inherited on the subgroup), onSub[L] direct on the subgroup, shared[L] through a share of the root. */
  direct: Record<number, Caller>;
  onSub: Record<number, Caller>;
  shared: Record<number, Caller>;
}

export interface World {
  stack: Stack;
  db: ThrowawayDatabase;
  rootToken: string;
  groups: WGroup[];
  memberships: Membership[];
  links: Link[];
  families: Record<Vis, Family>;
  anonymous: Caller;
  nonMember: Caller;
  blocked: Caller;
  external: Caller;
  admin: Caller;
  /** A Reporter of every target: members PUT and DELETE act on them. */
  bystander: Caller;
  /** Nobody's member: members POST adds them. */
  candidate: Caller;
  /** Public: POST share invites it. */
  invitee: WGroup;
  /** Private, nobody's but root's. */
  elsewhere: WGroup;
  /** Private, every target is shared with it at Developer: DELETE share removes that link. */
  unshareGroup: WGroup;
  pushRule: Record<string, unknown>;
}

export const PUSH_RULE = { max_file_size: 25, deny_delete_tag: true, commit_message_regex: "^(feat|fix): " };
export const ATTRIBUTE = { key: "tier", value: "gold" };

/** Runs `fn` over `items`, `width` at a time (the machine is small; the stack is shared). */
export async function inBatches<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width)
    out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}

export function must(res: Reply, status: number, what: string): Reply {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res;
}

export async function buildWorld(): Promise<World> {
  const db = await throwawayDatabase("canopy_test_matrix_");
  const suffix = randomBytes(4).toString("hex");
  const stack = await startStack({
    env: {
      ...db.env,
      CANOPY_REDIS_KEY_PREFIX: `matrix${suffix}:`,
      // Everything here is written through the API: answers may be kept, as in production.
      CANOPY_ANSWER_CACHE_SECONDS: "60",
    },
    hooks: {},
  });
  const root = stack.rootToken;
  const gw = stack.gw;
  const groups: WGroup[] = [];
  const memberships: Membership[] = [];
  const links: Link[] = [];
  const rootId = (must(await gw.get("/api/v4/user", { token: root }), 200, "root").body as { id: number }).id;

  const newCaller = async (label: string, attributes: Record<string, unknown> = {}): Promise<Caller> => {
    const user = await createUser(stack, { force_random_password: true, password: undefined, ...attributes });
    const token = await createToken(stack, user.id);
    const kind = attributes.admin ? "admin" : "user";
    return { label, kind, token: token.token, userId: user.id, external: Boolean(attributes.external) };
  };
  const newGroup = async (label: string, visibility: Vis, parent?: WGroup): Promise<WGroup> => {
    const path = unique("mx_");
    const res = must(
      await gw.post("/api/v4/groups", {
        token: root,
        json: { name: path, path, visibility, ...(parent ? { parent_id: parent.id } : {}) },
      }),
      201,
      `creating ${label}`,
    );
    const body = res.body as { id: number; full_path: string };
    const g = { id: body.id, label, path, fullPath: body.full_path, visibility, parentId: parent?.id };
    groups.push(g);
    // The creator becomes its Owner (reference §7.26).
    memberships.push({ userId: rootId, groupId: g.id, level: 50 });
    return g;
  };
  const addMember = async (g: WGroup, c: Caller, level: number) => {
    must(
      await gw.post(`/api/v4/groups/${g.id}/members`, {
        token: root,
        json: { user_id: c.userId, access_level: level },
      }),
      201,
      `adding ${c.label} to ${g.label}`,
    );
    memberships.push({ userId: c.userId, groupId: g.id, level });
  };
  const share = async (g: WGroup, withGroup: WGroup, level: number) => {
    must(
      await gw.post(`/api/v4/groups/${g.id}/share`, {
        token: root,
        json: { group_id: withGroup.id, group_access: level },
      }),
      201,
      `sharing ${g.label} with ${withGroup.label}`,
    );
    links.push({ sharedId: g.id, withId: withGroup.id, level });
  };

  const anonymous: Caller = { label: "anonymous", kind: "anonymous", userId: 0 };
  const [nonMember, blocked, external, admin, bystander, candidate] = (await inBatches(
    [
      ["signed-in non-member", {}],
      ["blocked user", {}],
      ["external user", { external: true }],
      ["administrator", { admin: true }],
      ["bystander", {}],
      ["candidate", {}],
    ] as [string, Record<string, unknown>][],
    3,
    ([label, attrs]) => newCaller(label, attrs),
  )) as [Caller, Caller, Caller, Caller, Caller, Caller];
  const roleUsers = await inBatches(
    VISIBILITIES.flatMap((v) =>
      LEVELS.flatMap((l) => (["direct", "onSub", "shared"] as const).map((how) => ({ v, l, how }))),
    ),
    4,
    async (r) => ({ ...r, caller: await newCaller(`${LEVEL_NAMES[r.l]} (${r.how}, ${r.v})`) }),
  );
  const roleOf = (v: Vis, how: string, l: number) =>
    roleUsers.find((r) => r.v === v && r.how === how && r.l === l)!.caller;

  const invitee = await newGroup("invitee", "public");
  const unshareGroup = await newGroup("unshare-group", "private");
  const elsewhere = await newGroup("elsewhere", "private");
  const families = {} as Record<Vis, Family>;
  for (const v of VISIBILITIES) {
    const rootGroup = await newGroup(`${v} root`, v);
    const sub = await newGroup(`${v} subgroup`, v, rootGroup);
    if (v === "public") await newGroup("private subgroup of the public root", "private", rootGroup);
    const family: Family = { root: rootGroup, sub, direct: {}, onSub: {}, shared: {} };
    for (const l of LEVELS) {
      family.direct[l] = roleOf(v, "direct", l);
      family.onSub[l] = roleOf(v, "onSub", l);
      family.shared[l] = roleOf(v, "shared", l);
      const invited = await newGroup(`${v} share of ${LEVEL_NAMES[l]}`, "private");
      await inBatches(
        [
          () => addMember(rootGroup, family.direct[l]!, l),
          () => addMember(sub, family.onSub[l]!, l),
          () => addMember(invited, family.shared[l]!, 50),
          () => share(rootGroup, invited, l),
        ],
        4,
        (f) => f(),
      );
    }
    families[v] = family;
  }
  const targets = VISIBILITIES.flatMap((v) => [families[v].root, families[v].sub]);
  for (const g of targets) {
    await addMember(g, bystander, 20);
    await share(g, unshareGroup, 30);
    must(
      await gw.post(`/api/v4/groups/${g.id}/push_rule`, { token: root, json: PUSH_RULE }),
      201,
      "push rule",
    );
    must(
      await gw.put(`/api/v4/groups/${g.id}/custom_attributes/${ATTRIBUTE.key}`, {
        token: root,
        json: { value: ATTRIBUTE.value },
      }),
      200,
      "custom attribute",
    );
    const form = new FormData();
    form.append("avatar", new Blob([png()]), "face.png");
    const res = await fetch(`${gw.base}/api/v4/groups/${g.id}`, {
      method: "PUT",
      headers: { "PRIVATE-TOKEN": root },
      body: form,
    });
    if (res.status !== 200) throw new Error(`avatar: ${res.status} ${await res.text()}`);
  }
  const pushRule = (await gw.get(`/api/v4/groups/${families.public.root.id}/push_rule`, { token: root }))
    .body as Record<string, unknown>;
  // Its membership stays; its token is refused from now on.
  await addMember(families.private.root, blocked, 50);
  must(await gw.post(`/api/v4/users/${blocked.userId}/block`, { token: root }), 201, "blocking");
  blocked.kind = "blocked";

  return {
    stack,
    db,
    rootToken: root,
    groups,
    memberships,
    links,
    families,
    anonymous,
    nonMember,
    blocked,
    external,
    admin,
    bystander,
    candidate,
    invitee,
    elsewhere,
    unshareGroup,
    pushRule,
  };
}

export async function dropWorld(w: World | undefined) {
  if (!w) return;
  await w.stack.stop();
  await w.db.drop();
}

/** The six groups every endpoint runs against: each root and its subgroup. */
export const targetsOf = (w: World): WGroup[] =>
  VISIBILITIES.flatMap((v) => [w.families[v].root, w.families[v].sub]);

/** Who calls each endpoint on `target`: its family's role users (labelled for it) and everyone else. */
export function callersOf(w: World, target: WGroup): Caller[] {
  const f = w.families[target.visibility];
  const onRoot = target.id === f.root.id;
  const roles = LEVELS.flatMap((l) => [
    { ...f.direct[l]!, label: `${LEVEL_NAMES[l]} (${onRoot ? "direct" : "inherited"})` },
    { ...f.onSub[l]!, label: `${LEVEL_NAMES[l]} (${onRoot ? "of the subgroup only" : "direct"})` },
    { ...f.shared[l]!, label: `${LEVEL_NAMES[l]} (through a share)` },
  ]);
  return [w.anonymous, w.nonMember, w.blocked, w.external, w.admin, ...roles];
}
