/**
 * The group webhook endpoints of the permission matrix (hooks reference §2.1): read_web_hook and
 * admin_web_hook belong to Owners of the group or an ancestor (a share at Owner included) and to
 * administrators. GitLab authenticates first (401, GETs on public groups too), then finds the group
 * (404 Group Not Found when the caller cannot read it), then authorizes: 403 for every member below
 * Owner. That is `owners`, the same steps as PUT /groups/:id. Each target holds one hook made by
 * root (`addHooks`) with a URL variable and a custom header, so every route acts on something real.
 */
import { asRoot, ok, owners, type EndpointRule } from "./groups-matrix-endpoints";
import { must, targetsOf, type WGroup, type World } from "./groups-matrix-world";

const HOOK = {
  url: "http://example.com/matrix",
  name: "matrix",
  url_variables: [{ key: "matrix_var", value: "matrix-value" }],
  custom_headers: [{ key: "X-Matrix", value: "matrix-value" }],
};

/** Root's hook on each target, by group id (the undo of a DELETE makes a new one). */
const hookOf = new Map<number, number>();

async function makeHook(w: World, g: WGroup) {
  const res = must(await asRoot(w, "POST", `/groups/${g.id}/hooks`, HOOK), 201, `hook on ${g.label}`);
  hookOf.set(g.id, (res.body as { id: number }).id);
}

export async function addHooks(w: World) {
  for (const g of targetsOf(w)) await makeHook(w, g);
}

const hooksPath = (g: WGroup) => `/groups/${g.id}/hooks`;
const hookPath = (g: WGroup) => `${hooksPath(g)}/${hookOf.get(g.id)}`;

export const HOOK_READ_ENDPOINTS: EndpointRule[] = [
  {
    name: "GET /groups/:id/hooks",
    request: (_w, g) => ({ method: "GET", path: hooksPath(g) }),
    steps: owners,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/hooks/:hook_id",
    request: (_w, g) => ({ method: "GET", path: hookPath(g) }),
    steps: owners,
    success: ok(200),
  },
  {
    name: "GET /groups/:id/hooks/:hook_id/events",
    request: (_w, g) => ({ method: "GET", path: `${hookPath(g)}/events` }),
    steps: owners,
    success: ok(200, []),
  },
];

export const HOOK_WRITE_ENDPOINTS: EndpointRule[] = [
  {
    name: "POST /groups/:id/hooks",
    watch: "hooks",
    request: (_w, g) => ({ method: "POST", path: hooksPath(g), json: { url: "http://example.com/made" } }),
    steps: owners,
    success: ok(201),
    undo: async (w, g, answer) =>
      void must(await asRoot(w, "DELETE", `${hooksPath(g)}/${(answer as { id: number }).id}`), 204, "undo"),
  },
  {
    name: "PUT /groups/:id/hooks/:hook_id",
    watch: "hooks",
    request: (_w, g) => ({ method: "PUT", path: hookPath(g), json: { name: "changed by the matrix" } }),
    steps: owners,
    success: ok(200),
    undo: async (w, g) => void must(await asRoot(w, "PUT", hookPath(g), { name: HOOK.name }), 200, "undo"),
  },
  {
    name: "DELETE /groups/:id/hooks/:hook_id",
    watch: "hooks",
    request: (_w, g) => ({ method: "DELETE", path: hookPath(g) }),
    steps: owners,
    success: ok(204),
    undo: (w, g) => makeHook(w, g),
  },
  {
    // The new secret is never shown again, so nothing root can see changes: no undo.
    name: "POST /groups/:id/hooks/:hook_id/signing_secret",
    watch: "hooks",
    request: (_w, g) => ({ method: "POST", path: `${hookPath(g)}/signing_secret` }),
    steps: owners,
    success: ok(201),
  },
  {
    name: "POST /groups/:id/hooks/:hook_id/test/:trigger",
    watch: "hooks",
    request: (_w, g) => ({ method: "POST", path: `${hookPath(g)}/test/push_events` }),
    steps: owners,
    // The matrix's groups have no projects to take a sample from (§2.8).
    success: ok(422, { message: "Ensure the group has a project with commits." }),
  },
  {
    name: "POST /groups/:id/hooks/:hook_id/events/:hook_log_id/resend",
    watch: "hooks",
    request: (_w, g) => ({ method: "POST", path: `${hookPath(g)}/events/1/resend` }),
    steps: owners,
    success: ok(404, { message: "404 Not found" }),
  },
  {
    name: "PUT /groups/:id/hooks/:hook_id/url_variables/:key",
    watch: "hooks",
    request: (_w, g) => ({
      method: "PUT",
      path: `${hookPath(g)}/url_variables/other_var`,
      json: { value: "x" },
    }),
    steps: owners,
    success: ok(204),
    undo: async (w, g) =>
      void must(await asRoot(w, "DELETE", `${hookPath(g)}/url_variables/other_var`), 204, "undo"),
  },
  {
    name: "DELETE /groups/:id/hooks/:hook_id/url_variables/:key",
    watch: "hooks",
    request: (_w, g) => ({ method: "DELETE", path: `${hookPath(g)}/url_variables/matrix_var` }),
    steps: owners,
    success: ok(204),
    undo: async (w, g) =>
      void must(
        await asRoot(w, "PUT", `${hookPath(g)}/url_variables/matrix_var`, { value: "matrix-value" }),
        204,
        "undo",
      ),
  },
  {
    name: "PUT /groups/:id/hooks/:hook_id/custom_headers/:key",
    watch: "hooks",
    request: (_w, g) => ({
      method: "PUT",
      path: `${hookPath(g)}/custom_headers/X-Other`,
      json: { value: "x" },
    }),
    steps: owners,
    success: ok(204),
    undo: async (w, g) =>
      void must(await asRoot(w, "DELETE", `${hookPath(g)}/custom_headers/X-Other`), 204, "undo"),
  },
  {
    name: "DELETE /groups/:id/hooks/:hook_id/custom_headers/:key",
    watch: "hooks",
    request: (_w, g) => ({ method: "DELETE", path: `${hookPath(g)}/custom_headers/X-Matrix` }),
    steps: owners,
    success: ok(204),
    undo: async (w, g) =>
      void must(
        await asRoot(w, "PUT", `${hookPath(g)}/custom_headers/X-Matrix`, { value: "matrix-value" }),
        204,
        "undo",
      ),
  },
];
