import { GROUP_HOOK_FLAGS, type GroupHookFlag, type Queryable } from "@canopy/kit";
import type { Strategy } from "../domain/branch-filter";
import type { Hook } from "../domain/hook";
import type { HookValues } from "../domain/hook-rules";
import type { HookSecrets } from "../secrets";

export type { Hook };

interface HookRowDb {
  id: string;
  group_id: string;
  name: string;
  description: string;
  url_sealed: Buffer;
  token_sealed: Buffer | null;
  url_variables_sealed: Buffer;
  custom_headers_sealed: Buffer;
  signing_secret_sealed: Buffer;
  enable_ssl_verification: boolean;
  push_events_branch_filter: string | null;
  branch_filter_strategy: Strategy;
  custom_webhook_template: string | null;
  recent_failures: number;
  disabled_until: Date | null;
  created_at: Date;
  updated_at: Date;
  [flag: string]: unknown;
}

const FLAG_COLUMNS = GROUP_HOOK_FLAGS.join(", ");

function hookOf(row: HookRowDb, secrets: HookSecrets): Hook {
  const id = Number(row.id);
  return {
    id,
    group_id: Number(row.group_id),
    name: row.name,
    description: row.description,
    url: secrets.open(id, "url", row.url_sealed),
    token: row.token_sealed ? secrets.open(id, "token", row.token_sealed) : null,
    url_variables: JSON.parse(secrets.open(id, "url_variables", row.url_variables_sealed)),
    custom_headers: JSON.parse(secrets.open(id, "custom_headers", row.custom_headers_sealed)),
    signing_secret: secrets.open(id, "signing_secret", row.signing_secret_sealed),
    enable_ssl_verification: row.enable_ssl_verification,
    push_events_branch_filter: row.push_events_branch_filter,
    branch_filter_strategy: row.branch_filter_strategy,
    custom_webhook_template: row.custom_webhook_template,
    flags: Object.fromEntries(GROUP_HOOK_FLAGS.map((f) => [f, Boolean(row[f])])) as Record<
      GroupHookFlag,
      boolean
    >,
    recent_failures: row.recent_failures,
    disabled_until: row.disabled_until,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Serializes hook creations of one group, so the per-group limit holds under concurrent creates. */
export async function lockGroupHooks(tx: Queryable, groupId: number): Promise<void> {
  await tx.query("SELECT pg_advisory_xact_lock(hashtextextended('canopy-hooks-group:' || $1::text, 0))", [
    groupId,
  ]);
}

export async function countGroupHooks(db: Queryable, groupId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM hooks WHERE group_id = $1", [
    groupId,
  ]);
  return rows[0]!.n;
}

/** The sealed columns of `values` for hook `id`. */
const sealedColumns = (secrets: HookSecrets, id: number, v: HookValues) => [
  secrets.seal(id, "url", v.url),
  v.token === null ? null : secrets.seal(id, "token", v.token),
  secrets.seal(id, "url_variables", JSON.stringify(v.url_variables)),
  secrets.seal(id, "custom_headers", JSON.stringify(v.custom_headers)),
];

const plainColumns = (v: HookValues) => [
  v.name,
  v.description,
  v.enable_ssl_verification,
  v.push_events_branch_filter,
  v.branch_filter_strategy,
  v.custom_webhook_template,
  ...GROUP_HOOK_FLAGS.map((f) => v.flags[f]),
];

const FLAG_PARAMS = (from: number) => GROUP_HOOK_FLAGS.map((_, i) => `$${from + i}`).join(", ");

export async function insertHook(
  tx: Queryable,
  secrets: HookSecrets,
  groupId: number,
  v: HookValues,
  signingSecret: string,
): Promise<Hook> {
  const { rows: ids } = await tx.query<{ id: string }>("SELECT nextval('hooks_id_seq') AS id");
  const id = Number(ids[0]!.id);
  const { rows } = await tx.query<HookRowDb>(
    `INSERT INTO hooks (id, group_id, url_sealed, token_sealed, url_variables_sealed, custom_headers_sealed,
                        signing_secret_sealed, name, description, enable_ssl_verification,
                        push_events_branch_filter, branch_filter_strategy, custom_webhook_template, ${FLAG_COLUMNS})
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, ${FLAG_PARAMS(14)})
     RETURNING *`,
    [
      id,
      groupId,
      ...sealedColumns(secrets, id, v),
      secrets.seal(id, "signing_secret", signingSecret),
      ...plainColumns(v),
    ],
  );
  return hookOf(rows[0]!, secrets);
}

/** Writes every attribute of `v` (the failure state stays: a successful test re-enables a hook). */
export async function updateHook(
  tx: Queryable,
  secrets: HookSecrets,
  id: number,
  v: HookValues,
): Promise<Hook> {
  const sets = GROUP_HOOK_FLAGS.map((f, i) => `${f} = $${12 + i}`).join(", ");
  const { rows } = await tx.query<HookRowDb>(
    `UPDATE hooks SET url_sealed = $2, token_sealed = $3, url_variables_sealed = $4, custom_headers_sealed = $5,
                      name = $6, description = $7, enable_ssl_verification = $8,
                      push_events_branch_filter = $9, branch_filter_strategy = $10, custom_webhook_template = $11,
                      ${sets}, updated_at = now()
      WHERE id = $1 RETURNING *`,
    [id, ...sealedColumns(secrets, id, v), ...plainColumns(v)],
  );
  return hookOf(rows[0]!, secrets);
}

export async function setSigningSecret(tx: Queryable, secrets: HookSecrets, id: number, secret: string) {
  await tx.query("UPDATE hooks SET signing_secret_sealed = $2, updated_at = now() WHERE id = $1", [
    id,
    secrets.seal(id, "signing_secret", secret),
  ]);
}

/** The group's hook `id`, locked for update when `forUpdate`; undefined when it is not the group's. */
export async function findHook(
  db: Queryable,
  secrets: HookSecrets,
  groupId: number,
  id: number,
  forUpdate = false,
): Promise<Hook | undefined> {
  const { rows } = await db.query<HookRowDb>(
    `SELECT * FROM hooks WHERE id = $1 AND group_id = $2${forUpdate ? " FOR UPDATE" : ""}`,
    [id, groupId],
  );
  return rows[0] && hookOf(rows[0], secrets);
}

export async function findHookById(
  db: Queryable,
  secrets: HookSecrets,
  id: number,
): Promise<Hook | undefined> {
  const { rows } = await db.query<HookRowDb>("SELECT * FROM hooks WHERE id = $1", [id]);
  return rows[0] && hookOf(rows[0], secrets);
}

/** Several hooks by id (a worker's claimed runs), in one round trip. */
export async function findHooksByIds(
  db: Queryable,
  secrets: HookSecrets,
  ids: number[],
): Promise<Map<number, Hook>> {
  const { rows } = await db.query<HookRowDb>({
    name: "hooks-by-ids",
    text: "SELECT * FROM hooks WHERE id = ANY($1::bigint[])",
    values: [ids],
  });
  return new Map(rows.map((r) => [Number(r.id), hookOf(r, secrets)]));
}

export async function listGroupHooks(
  db: Queryable,
  secrets: HookSecrets,
  groupId: number,
  window: { limit: number; offset: number },
): Promise<{ hooks: Hook[]; total: number }> {
  const { rows } = await db.query<HookRowDb & { total: number }>(
    `SELECT *, count(*) OVER ()::int AS total FROM hooks WHERE group_id = $1 ORDER BY id LIMIT $2 OFFSET $3`,
    [groupId, window.limit, window.offset],
  );
  if (!rows.length && window.offset) return { hooks: [], total: await countGroupHooks(db, groupId) };
  return { hooks: rows.map((r) => hookOf(r, secrets)), total: rows[0]?.total ?? 0 };
}

export async function deleteHook(tx: Queryable, id: number): Promise<void> {
  await tx.query("DELETE FROM hooks WHERE id = $1", [id]);
}

/** Removes the hooks of groups that are gone (their deliveries and logs go with them). */
export async function deleteGroupHooks(tx: Queryable, groupId: number): Promise<void> {
  await tx.query("DELETE FROM hooks WHERE group_id = $1", [groupId]);
}

export async function setFailureState(
  db: Queryable,
  id: number,
  state: { recent_failures: number; disabled_until: Date | null },
): Promise<void> {
  await db.query("UPDATE hooks SET recent_failures = $2, disabled_until = $3 WHERE id = $1", [
    id,
    state.recent_failures,
    state.disabled_until,
  ]);
}

/**
 * The hooks an event reaches: those of `groupIds` whose flag for it is on and that are executable
 * now (GitLab drops events for a disabled hook rather than queueing them), and, given `madeBy` (the
 * event's time), that existed when it happened: GitLab picks hooks as the change commits, and the
 * consumer may apply an event long after (a backlog, an outage). created_at is cut to milliseconds,
 * the precision of an event's time, so a hook made within the event's millisecond still gets it.
 */
export async function hooksForEvent(
  db: Queryable,
  groupIds: number[],
  flag: GroupHookFlag,
  autoDisable: boolean,
  madeBy?: Date,
): Promise<{ id: number; group_id: number }[]> {
  const reached = { groupIds, flag, autoDisable, madeBy };
  const { rows } = await db.query<{ id: string; group_id: string }>({
    // One prepared statement per text (flag and clauses): the fan-out runs it for every event.
    name: `hooks-for-event-${reachedKey(reached)}`,
    text: `SELECT id, group_id FROM hooks WHERE ${reachedWhere(reached, 1)} ORDER BY id`,
    values: reachedValues(reached),
  });
  return rows.map((r) => ({ id: Number(r.id), group_id: Number(r.group_id) }));
}

/** Which hooks an event reaches (hooksForEvent), for statements that select them themselves. */
export interface Reached {
  groupIds: number[];
  flag: GroupHookFlag;
  autoDisable: boolean;
  madeBy?: Date;
}

/** The condition on `hooks` (its parameters from `$first`: the group ids, then `madeBy` if given). */
export function reachedWhere({ flag, autoDisable, madeBy }: Reached, first: number): string {
  const existed = madeBy ? `AND date_trunc('milliseconds', created_at) <= $${first + 1}` : "";
  return `group_id = ANY($${first}::bigint[]) AND ${flag} AND ${executableWhere(autoDisable)} ${existed}`;
}

/** Executable now (GitLab's WebHooks::AutoDisabling), when auto-disabling is on; of `alias` if given. */
export function executableWhere(autoDisable: boolean, alias?: string): string {
  const c = (column: string) => (alias ? `${alias}.${column}` : column);
  return autoDisable
    ? `${c("recent_failures")} <= 39 AND (${c("recent_failures")} < 4 OR ${c("disabled_until")} IS NULL OR ${c("disabled_until")} < now())`
    : "true";
}

export const reachedValues = ({ groupIds, madeBy }: Reached): unknown[] =>
  madeBy ? [groupIds, madeBy] : [groupIds];

/** A statement name's part for the condition's text (one prepared statement per text). */
export const reachedKey = ({ flag, autoDisable, madeBy }: Reached) =>
  `${flag}-${autoDisable ? "a" : ""}${madeBy ? "m" : ""}`;
