/**
 * The read endpoints of the permission matrix (the writes are in groups-matrix-writes.ts): the request it sends to a target, the checks that
 * decide its answer (in GitLab's order, from groups-matrix-model.ts), the answer when they all pass,
 * and, for a write that succeeded, how root puts the target back so later cases see the same world.
 * Each write is one that would change the target if it were wrongly accepted.
 */
import {
  BARE_NOT_FOUND,
  checks as k,
  MAINTAINER,
  NAMESPACE_NOT_FOUND,
  OWNER,
  accessOf,
  type Check,
  type Expect,
} from "./groups-matrix-model";
import { ATTRIBUTE, type WGroup, type World } from "./groups-matrix-world";

export interface Request {
  method: string;
  path: string;
  json?: Record<string, unknown>;
}

/** Which of root's views of the target a write could change (compared before and after each case). */
export type Watch = "detail" | "subgroups" | "members" | "rule" | "attributes" | "hooks";

export interface EndpointRule {
  name: string;
  watch?: Watch;
  request(w: World, g: WGroup): Request;
  steps: Check[];
  success: (w: World, g: WGroup) => Expect;
  /** Puts the target back after a success (as root); `answer` is the success's body. */
  undo?(w: World, g: WGroup, answer: unknown): Promise<void>;
}

export const api = (path: string) => `/api/v4${path}`;
export const ok = (status: number, body?: unknown) => () => ({ status, body });
export const asRoot = (w: World, method: string, path: string, json?: Record<string, unknown>) =>
  w.stack.gw.request(method, api(path), { token: w.rootToken, json });

/** Anyone who may read the group (GET needs no sign-in, §1.3). */
const READ: Check[] = [k.notBlocked, k.visible];
/** Signed in, readable, then the ability (403). */
export const owners: Check[] = [
  k.notBlocked,
  k.signedIn,
  k.visible,
  k.atLeast(OWNER, { status: 403, body: { message: "403 Forbidden" } }),
];
const MEMBERS_READ: Check[] = [k.notBlocked, k.signedIn, k.visible, k.readsMembers];
/** Push rules: a bare 404 below Maintainer, never 403 (README "Groups: push rules"). */
export const PUSH_RULES: Check[] = [
  k.notBlocked,
  k.signedIn,
  k.visible,
  k.atLeast(MAINTAINER, BARE_NOT_FOUND),
];
/** Custom attributes: the global admin check first, anonymous GET included (§4.16). */
const ATTR_READ: Check[] = [k.notBlocked, k.admin];
export const ATTR_WRITE: Check[] = [k.notBlocked, k.signedIn, k.admin];

export const READ_ENDPOINTS: EndpointRule[] = [
  {
    name: "GET /groups/:id",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}` }),
    steps: READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id (by full path)",
    request: (_w, g) => ({ method: "GET", path: `/groups/${encodeURIComponent(g.fullPath)}` }),
    steps: READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/subgroups",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}/subgroups` }),
    steps: READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/descendant_groups",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}/descendant_groups` }),
    steps: READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/avatar",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}/avatar` }),
    steps: READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/members",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}/members` }),
    steps: MEMBERS_READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/members/all",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}/members/all` }),
    steps: MEMBERS_READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/members/:user_id",
    request: (w, g) => ({ method: "GET", path: `/groups/${g.id}/members/${w.bystander.userId}` }),
    steps: MEMBERS_READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/members/all/:user_id",
    request: (w, g) => ({ method: "GET", path: `/groups/${g.id}/members/all/${w.bystander.userId}` }),
    steps: MEMBERS_READ,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/custom_attributes",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}/custom_attributes` }),
    steps: ATTR_READ,
    success: ok(200, [ATTRIBUTE]),
  },
  {
    name: "GET /groups/:id/custom_attributes/:key",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}/custom_attributes/${ATTRIBUTE.key}` }),
    steps: ATTR_READ,
    success: ok(200, ATTRIBUTE),
  },
  {
    name: "GET /groups/:id/push_rule",
    request: (_w, g) => ({ method: "GET", path: `/groups/${g.id}/push_rule` }),
    steps: PUSH_RULES,
    success: ok(200),
  },
  {
    name: "GET /namespaces/:id",
    request: (_w, g) => ({ method: "GET", path: `/namespaces/${g.id}` }),
    // Signed in, and any access to it (read_namespace_via_membership); no 403 (README "Groups: lists").
    steps: [k.notBlocked, k.signedIn, (w, c, g) => (accessOf(w, c, g) > 0 ? undefined : NAMESPACE_NOT_FOUND)],
    success: ok(200),
  },
];
