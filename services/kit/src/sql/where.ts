/**
 * Builds a WHERE clause from optional filters, numbering parameters as it goes, so a store reads as
 * a list of conditions: `w.and(`user_id = ${w.param(userId)}`)`. Only a store builds one: SQL stays
 * in the store, and callers pass filter values, never SQL.
 */
export class Where {
  readonly params: unknown[] = [];
  private readonly conditions: string[] = [];

  /** The placeholder (`$3`) for `value`. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  /** Adds a condition; all conditions must hold. */
  and(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  /** `WHERE a AND b`, or "" when there is no condition. */
  get sql(): string {
    return this.conditions.length ? `WHERE ${this.conditions.map((c) => `(${c})`).join(" AND ")}` : "";
  }
}
