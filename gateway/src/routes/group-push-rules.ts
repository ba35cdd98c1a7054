import type { pushRules } from "@canopy/protos";
import { groupPushRuleEntity } from "../entities/group-push-rule";
import { endpoint, type Call } from "../http/endpoint";
import { paramError } from "../http/errors";
import { sendJson } from "../http/json";
import { param, parseParams } from "../http/params";
import { rawParams } from "./context";
import { groupRef } from "./groups";
import { GroupPushRule } from "../entities/schemas";

/**
 * Group push rules (GitLab ee/lib/api/group_push_rule.rb), premium and up. GitLab runs its access
 * checks in `before` blocks, ahead of parameter validation: a caller who may not manage the rule
 * learns nothing from a 400. So the endpoints declare only `:id`; each handler parses the rest
 * itself and, when that fails, lets the service's checks answer first (AuthorizePushRules).
 */

const idParams = { id: param.idOrPath() };

/** Declared as GitLab declares them, in its order (the at-least-one message lists them so). */
const pushRuleParams = {
  deny_delete_tag: param.boolean().optional(),
  member_check: param.boolean().optional(),
  prevent_secrets: param.boolean().optional(),
  commit_message_regex: param.string(100_000).optional(),
  commit_message_negative_regex: param.string(100_000).optional(),
  branch_name_regex: param.string(100_000).optional(),
  author_email_regex: param.string(100_000).optional(),
  file_name_regex: param.string(100_000).optional(),
  max_file_size: param.integer().optional(),
  commit_committer_check: param.boolean().optional(),
  commit_committer_name_check: param.boolean().optional(),
  reject_unsigned_commits: param.boolean().optional(),
  reject_non_dco_commits: param.boolean().optional(),
};
type PushRuleParams = ReturnType<typeof parseParams<typeof pushRuleParams>>;

const AT_LEAST_ONE = `${Object.keys(pushRuleParams).join(", ")} are missing, at least one parameter must be provided`;

/** Keys GitLab licenses separately; naming one at all, even as false, needs the licence. */
const GATED_KEYS = [
  "commit_committer_check",
  "commit_committer_name_check",
  "reject_unsigned_commits",
  "reject_non_dco_commits",
];

/** Who, which group, and whether a gated key was named (GitLab's `params.key?`, any value). */
const pushRuleCall = ({ params, actor, ctx }: Call<typeof idParams>) => {
  const raw = rawParams(ctx);
  return { actor, group: groupRef(params.id), gatedKeysSent: GATED_KEYS.some((k) => k in raw), raw };
};

const toAttributes = (p: PushRuleParams): pushRules.PushRuleAttributes => ({
  denyDeleteTag: p.deny_delete_tag,
  memberCheck: p.member_check,
  preventSecrets: p.prevent_secrets,
  commitMessageRegex: p.commit_message_regex,
  commitMessageNegativeRegex: p.commit_message_negative_regex,
  branchNameRegex: p.branch_name_regex,
  authorEmailRegex: p.author_email_regex,
  fileNameRegex: p.file_name_regex,
  maxFileSize: p.max_file_size,
  commitCommitterCheck: p.commit_committer_check,
  commitCommitterNameCheck: p.commit_committer_name_check,
  rejectUnsignedCommits: p.reject_unsigned_commits,
  rejectNonDcoCommits: p.reject_non_dco_commits,
});

/**
 * The write request: the attributes sent, or Grape's 400 once the service has found the caller
 * allowed. A null value counts as not sent (the contract cannot carry "set to null").
 */
async function writeRequest(call: Call<typeof idParams>): Promise<pushRules.WritePushRuleRequest> {
  const { raw, ...base } = pushRuleCall(call);
  const sent = Object.fromEntries(
    Object.keys(pushRuleParams)
      .filter((k) => raw[k] !== undefined && raw[k] !== null)
      .map((k) => [k, raw[k]]),
  );
  try {
    if (!Object.keys(sent).length) throw paramError(AT_LEAST_ONE);
    return { ...base, attributes: toAttributes(parseParams(pushRuleParams, sent)) };
  } catch (err) {
    await call.deps.pushRules.authorizePushRules(base);
    throw err;
  }
}

async function showPushRule(call: Call<typeof idParams>) {
  const { raw: _raw, ...request } = pushRuleCall(call);
  const rule = await call.deps.pushRules.getPushRule(request);
  sendJson(call.ctx, 200, groupPushRuleEntity(rule, call.deps.config.CANOPY_PLAN));
}

async function createPushRule(call: Call<typeof idParams>) {
  const rule = await call.deps.pushRules.createPushRule(await writeRequest(call));
  sendJson(call.ctx, 201, groupPushRuleEntity(rule, call.deps.config.CANOPY_PLAN));
}

async function updatePushRule(call: Call<typeof idParams>) {
  const rule = await call.deps.pushRules.updatePushRule(await writeRequest(call));
  sendJson(call.ctx, 200, groupPushRuleEntity(rule, call.deps.config.CANOPY_PLAN));
}

/** GitLab's Time.parse of If-Unmodified-Since: a header it cannot read is ignored. */
function unmodifiedSince(header: string | undefined): Date | undefined {
  if (!header) return undefined;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : new Date(at);
}

async function deletePushRule(call: Call<typeof idParams>) {
  const { raw: _raw, ...request } = pushRuleCall(call);
  await call.deps.pushRules.deletePushRule({
    ...request,
    ifUnmodifiedSince: unmodifiedSince(call.ctx.get("If-Unmodified-Since")),
  });
  call.ctx.status = 204;
}

export const groupPushRuleEndpoints = [
  endpoint({
    method: "GET",
    path: "/groups/:id/push_rule",
    access: "user",
    params: idParams,
    handler: showPushRule,
    responses: { 200: GroupPushRule },
  }),
  endpoint({
    method: "POST",
    path: "/groups/:id/push_rule",
    access: "user",
    params: idParams,
    handler: createPushRule,
    responses: { 201: GroupPushRule },
  }),
  endpoint({
    method: "PUT",
    path: "/groups/:id/push_rule",
    access: "user",
    params: idParams,
    handler: updatePushRule,
    responses: { 200: GroupPushRule },
  }),
  endpoint({
    method: "DELETE",
    path: "/groups/:id/push_rule",
    access: "user",
    params: idParams,
    handler: deletePushRule,
    responses: { 204: null },
  }),
];
