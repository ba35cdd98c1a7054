/**
 * The write endpoints of the permission matrix: the request (one that would change the target if it
 * were wrongly accepted), the checks in GitLab's order, the answer when they pass, and how root puts
 * the target back after a success so that later cases see the same world.
 */
import {
  api,
  asRoot,
  ATTR_WRITE,
  ok,
  owners,
  PUSH_RULES,
  type EndpointRule,
} from "./groups-matrix-endpoints";
import {
  checks as k,
  GROUP_NOT_FOUND,
  MAINTAINER,
  OWNER,
  readable,
  SHARE_NOT_FOUND,
} from "./groups-matrix-model";
import { ATTRIBUTE, must, PUSH_RULE } from "./groups-matrix-world";
import { unique, waitFor } from "./support";

export const WRITE_ENDPOINTS: EndpointRule[] = [
  {
    name: "PUT /groups/:id",
    request: (_w, g) => ({
      method: "PUT",
      path: `/groups/${g.id}`,
      json: { description: "changed by the matrix" },
    }),
    steps: owners,
    success: ok(200),
    undo: async (w, g) =>
      void must(await asRoot(w, "PUT", `/groups/${g.id}`, { description: "" }), 200, "undo PUT"),
  },
  {
    name: "DELETE /groups/:id",
    request: (_w, g) => ({ method: "DELETE", path: `/groups/${g.id}` }),
    steps: owners,
    success: ok(202, { message: "202 Accepted" }),
    undo: async (w, g) => void must(await asRoot(w, "POST", `/groups/${g.id}/restore`), 201, "undo DELETE"),
  },
  {
    name: "POST /groups/:id/restore",
    request: (_w, g) => ({ method: "POST", path: `/groups/${g.id}/restore` }),
    steps: owners,
    success: ok(400, { message: "Group has not been marked for deletion" }),
  },
  {
    name: "POST /groups/:id/transfer",
    // Root: to the top (it is there); subgroup: to its parent (it is there): refused by the service, after the checks.
    request: (_w, g) => ({
      method: "POST",
      path: `/groups/${g.id}/transfer`,
      json: g.parentId ? { group_id: g.parentId } : {},
    }),
    steps: owners,
    success: (_w, g) => ({
      status: 400,
      body: {
        message: g.parentId
          ? "Transfer failed: Group is already associated to the parent group."
          : "Transfer failed: Group is already a root group.",
      },
    }),
  },
  {
    name: "POST /groups (parent_id)",
    watch: "subgroups",
    request: (_w, g) => {
      const path = unique("mxsub_");
      return { method: "POST", path: "/groups", json: { name: path, path, parent_id: g.id } };
    },
    // create_subgroup: Owner, or Maintainer with subgroup_creation_level maintainer (the default).
    steps: [
      k.notBlocked,
      k.signedIn,
      k.visible,
      k.atLeast(MAINTAINER, { status: 403, body: { message: "403 Forbidden" } }),
    ],
    success: ok(201),
    undo: async (w, _g, answer) => {
      const made = answer as { id: number; full_path: string };
      must(await asRoot(w, "DELETE", `/groups/${made.id}`), 202, "undo POST /groups (mark)");
      const q = `permanently_remove=true&full_path=${encodeURIComponent(made.full_path)}`;
      must(await asRoot(w, "DELETE", `/groups/${made.id}?${q}`), 202, "undo POST /groups (remove)");
      // The removal runs in the background after the 202: undone only once the group is gone.
      await waitFor(
        "the undone subgroup removed",
        async () => (await asRoot(w, "GET", `/groups/${made.id}`)).status === 404,
        30_000,
      );
    },
  },
  {
    name: "POST /groups/:id/share",
    request: (w, g) => ({
      method: "POST",
      path: `/groups/${g.id}/share`,
      json: { group_id: w.invitee.id, group_access: 30 },
    }),
    steps: [k.notBlocked, k.signedIn, k.visible, k.atLeast(OWNER, SHARE_NOT_FOUND)],
    success: ok(201),
    undo: async (w, g) =>
      void must(await asRoot(w, "DELETE", `/groups/${g.id}/share/${w.invitee.id}`), 204, "undo share"),
  },
  {
    name: "POST /groups/:id/share (a group the caller cannot see)",
    request: (w, g) => ({
      method: "POST",
      path: `/groups/${g.id}/share`,
      json: { group_id: w.elsewhere.id, group_access: 30 },
    }),
    // find_group!(group_id) comes before the Owner check (§4.13): 404 Group Not Found, not "Not Found".
    steps: [
      k.notBlocked,
      k.signedIn,
      k.visible,
      (w, c) => (readable(w, c, w.elsewhere) ? undefined : GROUP_NOT_FOUND),
      k.atLeast(OWNER, SHARE_NOT_FOUND),
    ],
    success: ok(201),
    undo: async (w, g) =>
      void must(await asRoot(w, "DELETE", `/groups/${g.id}/share/${w.elsewhere.id}`), 204, "undo share"),
  },
  {
    name: "DELETE /groups/:id/share/:group_id",
    request: (w, g) => ({ method: "DELETE", path: `/groups/${g.id}/share/${w.unshareGroup.id}` }),
    // A visible non-Owner gets 204 and nothing is removed (§4.14); the snapshot checks that.
    steps: [k.notBlocked, k.signedIn, k.visible],
    success: ok(204),
    undo: async (w, g) => {
      const c = w.stack.gw;
      const link = await c.get(api(`/groups/${g.id}`), { token: w.rootToken });
      const linked = (link.body as { shared_with_groups: { group_id: number }[] }).shared_with_groups;
      if (linked.some((l) => l.group_id === w.unshareGroup.id)) return; // a non-Owner's no-op
      const json = { group_id: w.unshareGroup.id, group_access: 30 };
      must(await asRoot(w, "POST", `/groups/${g.id}/share`, json), 201, "undo unshare");
    },
  },
  {
    name: "POST /groups/:id/members",
    watch: "members",
    request: (w, g) => ({
      method: "POST",
      path: `/groups/${g.id}/members`,
      json: { user_id: w.candidate.userId, access_level: 10 },
    }),
    steps: owners,
    success: ok(201),
    undo: async (w, g) =>
      void must(await asRoot(w, "DELETE", `/groups/${g.id}/members/${w.candidate.userId}`), 204, "undo add"),
  },
  {
    name: "PUT /groups/:id/members/:user_id",
    watch: "members",
    request: (w, g) => ({
      method: "PUT",
      path: `/groups/${g.id}/members/${w.bystander.userId}`,
      json: { access_level: 30 },
    }),
    steps: owners,
    success: ok(200),
    undo: async (w, g) =>
      void must(
        await asRoot(w, "PUT", `/groups/${g.id}/members/${w.bystander.userId}`, { access_level: 20 }),
        200,
        "undo PUT member",
      ),
  },
  {
    name: "DELETE /groups/:id/members/:user_id",
    watch: "members",
    request: (w, g) => ({
      method: "DELETE",
      path: `/groups/${g.id}/members/${w.bystander.userId}?skip_subresources=true`,
    }),
    steps: owners,
    success: ok(204),
    undo: async (w, g) =>
      void must(
        await asRoot(w, "POST", `/groups/${g.id}/members`, { user_id: w.bystander.userId, access_level: 20 }),
        201,
        "undo DELETE member",
      ),
  },
  {
    name: "PUT /groups/:id/custom_attributes/:key",
    watch: "attributes",
    request: (_w, g) => ({
      method: "PUT",
      path: `/groups/${g.id}/custom_attributes/matrix`,
      json: { value: "x" },
    }),
    steps: ATTR_WRITE,
    success: ok(200, { key: "matrix", value: "x" }),
    undo: async (w, g) =>
      void must(await asRoot(w, "DELETE", `/groups/${g.id}/custom_attributes/matrix`), 204, "undo attr"),
  },
  {
    name: "DELETE /groups/:id/custom_attributes/:key",
    watch: "attributes",
    request: (_w, g) => ({ method: "DELETE", path: `/groups/${g.id}/custom_attributes/${ATTRIBUTE.key}` }),
    steps: ATTR_WRITE,
    success: ok(204),
    undo: async (w, g) =>
      void must(
        await asRoot(w, "PUT", `/groups/${g.id}/custom_attributes/${ATTRIBUTE.key}`, {
          value: ATTRIBUTE.value,
        }),
        200,
        "undo",
      ),
  },
  {
    name: "POST /groups/:id/push_rule",
    watch: "rule",
    request: (_w, g) => ({ method: "POST", path: `/groups/${g.id}/push_rule`, json: { max_file_size: 1 } }),
    steps: PUSH_RULES,
    success: ok(422, { message: "Group push rule exists, try updating" }),
  },
  {
    name: "PUT /groups/:id/push_rule",
    watch: "rule",
    request: (_w, g) => ({ method: "PUT", path: `/groups/${g.id}/push_rule`, json: { max_file_size: 7 } }),
    steps: PUSH_RULES,
    success: ok(200),
    undo: async (w, g) =>
      void must(
        await asRoot(w, "PUT", `/groups/${g.id}/push_rule`, { max_file_size: PUSH_RULE.max_file_size }),
        200,
        "undo",
      ),
  },
  {
    name: "DELETE /groups/:id/push_rule",
    watch: "rule",
    request: (_w, g) => ({ method: "DELETE", path: `/groups/${g.id}/push_rule` }),
    steps: PUSH_RULES,
    success: ok(204),
    undo: async (w, g) =>
      void must(await asRoot(w, "POST", `/groups/${g.id}/push_rule`, PUSH_RULE), 201, "undo"),
  },
];
