import type { Queryable } from "@canopy/kit";
import type { StatusFields } from "../domain/user-status";

interface StatusRow {
  emoji: string;
  message: string | null;
  availability: string;
  clear_status_at: Date | null;
}

const toFields = (r: StatusRow): StatusFields => ({
  emoji: r.emoji,
  message: r.message,
  availability: r.availability,
  clearStatusAt: r.clear_status_at,
});

/** The user's stored status, expired or not (the caller decides), locked when `forUpdate`. */
export async function findStatus(db: Queryable, userId: number, forUpdate = false) {
  const { rows } = await db.query<StatusRow>(
    `SELECT emoji, message, availability, clear_status_at FROM user_statuses WHERE user_id = $1
     ${forUpdate ? "FOR UPDATE" : ""}`,
    [userId],
  );
  return rows[0] ? toFields(rows[0]) : null;
}

export async function saveStatus(db: Queryable, userId: number, s: StatusFields) {
  await db.query(
    `INSERT INTO user_statuses (user_id, emoji, message, availability, clear_status_at)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (user_id) DO UPDATE SET emoji = $2, message = $3, availability = $4,
       clear_status_at = $5, updated_at = now()`,
    [userId, s.emoji, s.message, s.availability, s.clearStatusAt],
  );
}

export async function deleteStatus(db: Queryable, userId: number) {
  await db.query("DELETE FROM user_statuses WHERE user_id = $1", [userId]);
}
