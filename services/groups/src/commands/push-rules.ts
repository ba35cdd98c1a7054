import {
  apiError,
  grpcStatus,
  invalid,
  notFound,
  planFeatures,
  recordEvent,
  withTransaction,
  type PoolClient,
} from "@canopy/kit";
import { GROUPS_EVENTS, type common, type pushRules } from "@canopy/protos";
import { applyChanges, EMPTY_PUSH_RULE, pushRuleErrors, type PushRuleValues } from "../domain/push-rules";
import type { Deps } from "../deps";
import { authorizePushRules, toPushRule } from "../finders/push-rules";
import type { NamespaceRow } from "../store/namespaces";
import {
  changedSince,
  copyNearestPushRule,
  deletePushRule as deleteRow,
  findPushRule,
  insertPushRule,
  updatePushRule as updateRow,
} from "../store/push-rules";

/** POST on a group that has a rule: GitLab's unprocessable_entity! (422, a message, not a hash). */
const exists = () => apiError(422, "Group push rule exists, try updating", grpcStatus.ALREADY_EXISTS);

/** The attributes a request sent, as model attributes (undefined: not sent). */
const sentValues = (a: pushRules.PushRuleAttributes | undefined): Partial<PushRuleValues> => ({
  commit_message_regex: a?.commitMessageRegex,
  commit_message_negative_regex: a?.commitMessageNegativeRegex,
  branch_name_regex: a?.branchNameRegex,
  author_email_regex: a?.authorEmailRegex,
  file_name_regex: a?.fileNameRegex,
  deny_delete_tag: a?.denyDeleteTag,
  member_check: a?.memberCheck,
  prevent_secrets: a?.preventSecrets,
  max_file_size: a?.maxFileSize,
  commit_committer_check: a?.commitCommitterCheck,
  commit_committer_name_check: a?.commitCommitterNameCheck,
  reject_unsigned_commits: a?.rejectUnsignedCommits,
  reject_non_dco_commits: a?.rejectNonDcoCommits,
});

/** Applies the sent attributes and runs the model's validations: 400 with GitLab's field hash. */
function validChanges(current: PushRuleValues, req: pushRules.WritePushRuleRequest): PushRuleValues {
  const next = applyChanges(current, sentValues(req.attributes));
  const errors = pushRuleErrors(next);
  if (Object.keys(errors).length) throw invalid(errors);
  return next;
}

const changed = (tx: PoolClient, groupId: number, present: boolean, actor: common.Actor) =>
  recordEvent(tx, GROUPS_EVENTS.pushRuleChanged, { groupId, present }, actor);

/** POST /groups/:id/push_rule: 422 when the group has a rule, checked before the attributes. */
export async function createPushRule(
  deps: Deps,
  req: pushRules.WritePushRuleRequest,
): Promise<pushRules.PushRule> {
  const { row, actor } = await authorizePushRules(deps, req);
  if (await findPushRule(deps.pool, row.id)) throw exists();
  const values = validChanges(EMPTY_PUSH_RULE, req);
  const created = await withTransaction(deps.pool, async (tx) => {
    const inserted = await insertPushRule(tx, row.id, values);
    // A concurrent POST won the race: the same answer as if it had come first.
    if (!inserted) throw exists();
    await changed(tx, row.id, true, actor);
    return inserted;
  });
  return toPushRule(created);
}

/** PUT /groups/:id/push_rule: only the attributes sent change; 404 "Push rule" without one. */
export async function updatePushRule(
  deps: Deps,
  req: pushRules.WritePushRuleRequest,
): Promise<pushRules.PushRule> {
  const { row, actor } = await authorizePushRules(deps, req);
  const updated = await withTransaction(deps.pool, async (tx) => {
    const current = await findPushRule(tx, row.id, { forUpdate: true });
    if (!current) throw notFound("Push rule");
    const saved = await updateRow(tx, current.id, validChanges(current, req));
    await changed(tx, row.id, true, actor);
    return saved;
  });
  return toPushRule(updated);
}

/**
 * DELETE /groups/:id/push_rule: a bare 404 without one; with If-Unmodified-Since, 412 when the rule
 * changed after that moment (GitLab's destroy_conditionally!, compared at full precision).
 */
export async function deletePushRule(
  deps: Deps,
  req: pushRules.DeletePushRuleRequest,
): Promise<pushRules.DeletePushRuleResponse> {
  const { row, actor } = await authorizePushRules(deps, req);
  await withTransaction(deps.pool, async (tx) => {
    const current = await findPushRule(tx, row.id, { forUpdate: true });
    if (!current) throw notFound();
    if (req.ifUnmodifiedSince && (await changedSince(tx, current.id, req.ifUnmodifiedSince)))
      throw apiError(412, "412 Precondition Failed");
    await deleteRow(tx, current.id);
    await changed(tx, row.id, false, actor);
  });
  return {};
}

/**
 * A new subgroup gets a copy of its nearest ancestor's push rule (EE's create_predefined_push_rule;
 * reference §4.3): a copy, so later edits of the ancestor's rule do not reach it. Runs inside the
 * creation's transaction, with the tree locked; premium and up only.
 */
export async function copyAncestorPushRule(
  deps: Deps,
  tx: PoolClient,
  group: NamespaceRow,
  actor: common.Actor,
): Promise<void> {
  if (!planFeatures(deps.config.CANOPY_PLAN).pushRules || group.traversal_ids.length < 2) return;
  const copied = await copyNearestPushRule(tx, group.id, group.traversal_ids.slice(0, -1));
  if (copied) await changed(tx, group.id, true, actor);
}
