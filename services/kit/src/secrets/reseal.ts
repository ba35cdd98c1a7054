import type { Pool } from "pg";
import type { Logger } from "pino";
import { withTransaction } from "../db";
import type { BackgroundTask } from "../service/definition";
import type { SealingKeys } from "./sealing-keys";

/** A table's sealed columns: each column's values are sealed with the context `contextOf(id, column)`. */
export interface SealedColumns {
  table: string;
  /** The key column (numeric, unique) the table is walked by. */
  key: string;
  columns: string[];
  contextOf: (id: string, column: string) => string;
}

const BATCH = 100;

/**
 * While a key rotation is under way, moves every value of `sealed` to the current key, once per
 * start: a hundred rows at a time, each batch locked and rewritten in one transaction, so replicas
 * doing the same at once only find the rows already moved, and a write racing it waits its turn.
 */
export function resealTask(
  deps: { pool: Pool; log: Logger },
  keys: SealingKeys,
  sealed: SealedColumns,
): BackgroundTask[] {
  if (!keys.rotating) return [];
  return [
    {
      name: `reseal ${sealed.table}`,
      start: async () => {
        let stopped = false;
        const run = resealAll(deps.pool, keys, sealed, () => stopped)
          .then((moved) =>
            deps.log.info({ table: sealed.table, moved }, "secrets moved to the current instance key"),
          )
          .catch((err) =>
            deps.log.error({ err, table: sealed.table }, "moving secrets to the current key failed"),
          );
        return async () => {
          stopped = true;
          await run;
        };
      },
    },
  ];
}

/** Walks the table, returning how many rows were rewritten. */
export async function resealAll(
  pool: Pool,
  keys: SealingKeys,
  { table, key, columns, contextOf }: SealedColumns,
  stopped: () => boolean = () => false,
): Promise<number> {
  let after = "-1";
  let moved = 0;
  for (;;) {
    if (stopped()) return moved;
    const rows = await withTransaction(pool, async (tx) => {
      // The text copy of the key has a name of its own: ORDER BY must see the numeric column.
      const { rows } = await tx.query<Record<string, Buffer | null> & { reseal_id: string }>(
        `SELECT ${key}::text AS reseal_id, ${columns.join(", ")} FROM ${table} WHERE ${key} > $1
         ORDER BY ${table}.${key} LIMIT ${BATCH} FOR UPDATE`,
        [after],
      );
      for (const row of rows) {
        const fresh = columns.map((column) => {
          const value = row[column];
          return value ? keys.reseal(value, contextOf(row.reseal_id, column)) : undefined;
        });
        if (fresh.every((value) => value === undefined)) continue;
        const sets = columns.map((column, i) => `${column} = COALESCE($${i + 2}, ${column})`).join(", ");
        await tx.query(`UPDATE ${table} SET ${sets} WHERE ${key} = $1`, [
          row.reseal_id,
          ...fresh.map((v) => v ?? null),
        ]);
        moved++;
      }
      return rows;
    });
    if (rows.length < BATCH) return moved;
    after = rows[rows.length - 1]!.reseal_id;
  }
}
