import type { Queryable } from "@canopy/kit";
import { auth, type events } from "@canopy/protos";
import { userAvatarPath, userAvatarUrl } from "../domain/avatar-url";
import type { IdentityRow } from "./identities";
import type { UserStateName } from "../domain/user-state";

export interface UserRow {
  id: number;
  username: string;
  email: string;
  name: string;
  state: UserStateName;
  admin: boolean;
  two_factor_enabled: boolean;
  password_hash: string | null;
  bio: string;
  location: string;
  public_email: string;
  website_url: string;
  organization: string;
  job_title: string;
  note: string;
  projects_limit: number;
  can_create_group: boolean;
  external: boolean;
  private_profile: boolean;
  created_at: Date;
  confirmed_at: Date | null;
  /** Devise's trackable fields (migration 0015): last_* is the sign-in before current_*. */
  last_sign_in_at: Date | null;
  current_sign_in_at: Date | null;
  /** inet columns, as node-postgres gives them: text. */
  current_sign_in_ip: string | null;
  last_sign_in_ip: string | null;
  sign_in_count: number;
  /** The avatar's file name (its bytes are in user_avatars); null without one. */
  avatar_filename: string | null;
  /** A `date`: node-postgres gives it as a Date at local midnight (or text where so configured). */
  last_activity_on: Date | string | null;
  /** When the user's LDAP identity was last checked against the directory (GitLab's name; ldap-checks.ts). */
  last_credential_check_at: Date | null;
}

/** YYYY-MM-DD of a `date` column as node-postgres returns it; "" for none. */
function dayOf(v: Date | string | null | undefined): string {
  if (!v) return "";
  if (typeof v === "string") return v.slice(0, 10);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${v.getFullYear()}-${pad(v.getMonth() + 1)}-${pad(v.getDate())}`;
}

/** Columns a caller may set, from the API attribute names to the table's. */
export const WRITABLE_COLUMNS = {
  username: "username",
  email: "email",
  name: "name",
  admin: "admin",
  bio: "bio",
  location: "location",
  publicEmail: "public_email",
  websiteUrl: "website_url",
  organization: "organization",
  jobTitle: "job_title",
  note: "note",
  projectsLimit: "projects_limit",
  canCreateGroup: "can_create_group",
  external: "external",
  privateProfile: "private_profile",
} as const satisfies Partial<Record<keyof auth.UserAttributes, string>>;

export type UserColumns = Partial<
  Record<
    (typeof WRITABLE_COLUMNS)[keyof typeof WRITABLE_COLUMNS] | "password_hash" | "confirmed_at" | "state",
    unknown
  >
>;

/** The API's state names as the contract's enum; an unknown name reads as blocked, never as active. */
const STATE_ENUM: Record<UserStateName, auth.UserState> = {
  active: auth.UserState.USER_STATE_ACTIVE,
  blocked: auth.UserState.USER_STATE_BLOCKED,
  ldap_blocked: auth.UserState.USER_STATE_LDAP_BLOCKED,
  blocked_pending_approval: auth.UserState.USER_STATE_BLOCKED_PENDING_APPROVAL,
  banned: auth.UserState.USER_STATE_BANNED,
  deactivated: auth.UserState.USER_STATE_DEACTIVATED,
};

const toIdentities = (rows: IdentityRow[]) =>
  rows.map((i) => ({ provider: i.provider, externUid: i.extern_uid }));

export const toUser = (r: UserRow, identities: IdentityRow[] = []): auth.User => ({
  id: r.id,
  username: r.username,
  email: r.email,
  name: r.name,
  state: STATE_ENUM[r.state] ?? auth.UserState.USER_STATE_BLOCKED,
  admin: r.admin,
  twoFactorEnabled: r.two_factor_enabled,
  createdAt: r.created_at,
  lastSignInAt: r.last_sign_in_at ?? undefined,
  confirmedAt: r.confirmed_at ?? undefined,
  bio: r.bio,
  location: r.location,
  publicEmail: r.public_email,
  websiteUrl: r.website_url,
  organization: r.organization,
  jobTitle: r.job_title,
  projectsLimit: r.projects_limit,
  canCreateGroup: r.can_create_group,
  external: r.external,
  privateProfile: r.private_profile,
  note: r.note,
  identities: toIdentities(identities),
  customAttributes: [],
  avatarPath: userAvatarPath(r.id, r.avatar_filename),

  lastActivityOn: dayOf(r.last_activity_on),
  currentSignInAt: r.current_sign_in_at ?? undefined,
  // Administrators' details only (withSignInDetails).
  signInCount: 0,
  currentSignInIp: "",
  lastSignInIp: "",
});

/** The user with the trackable fields only administrators see (GitLab's UserDetailsWithAdmin). */
export const withSignInDetails = (user: auth.User, r: UserRow): auth.User => ({
  ...user,
  signInCount: r.sign_in_count,
  currentSignInIp: r.current_sign_in_ip ?? "",
  lastSignInIp: r.last_sign_in_ip ?? "",
});

/** What other services keep of a user, as auth's user events carry it. */
export const toUserSnapshot = (r: UserRow, identities: IdentityRow[] = []): events.UserSnapshot => ({
  userId: r.id,
  username: r.username,
  name: r.name,
  state: r.state,
  admin: r.admin,
  external: r.external,
  canCreateGroup: r.can_create_group,
  avatarUrl: userAvatarUrl(r.id, r.avatar_filename),
  email: r.email,
  identities: toIdentities(identities),
  publicEmail: r.public_email ?? "",
});

export async function findUserById(db: Queryable, id: number): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>({
    name: "user-by-id",
    text: "SELECT * FROM users WHERE id = $1",
    values: [id],
  });
  return rows[0];
}

/** The user, locked until the transaction ends: what a write changes is compared with this. */
export async function lockUserById(tx: Queryable, id: number): Promise<UserRow | undefined> {
  const { rows } = await tx.query<UserRow>("SELECT * FROM users WHERE id = $1 FOR UPDATE", [id]);
  return rows[0];
}

/**
 * The next `limit` users after `afterId`, in id order, share-locked until the transaction ends: a
 * write to one of them waits, so its own event is recorded after the snapshot read here, never before.
 */
export async function lockUsersAfter(tx: Queryable, afterId: number, limit: number): Promise<UserRow[]> {
  const { rows } = await tx.query<UserRow>(
    "SELECT * FROM users WHERE id > $1 ORDER BY id LIMIT $2 FOR SHARE",
    [afterId, limit],
  );
  return rows;
}

/** Case-insensitive, preferring an exact-case match (as GitLab's routes do). */
export async function findUserByUsername(db: Queryable, username: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>("SELECT * FROM users WHERE lower(username) = lower($1)", [
    username,
  ]);
  return rows[0];
}

export async function findUserByLogin(db: Queryable, login: string): Promise<UserRow | undefined> {
  const { rows } = await db.query<UserRow>(
    "SELECT * FROM users WHERE lower(username) = lower($1) OR lower(email) = lower($1) ORDER BY id LIMIT 1",
    [login],
  );
  return rows[0];
}

export async function insertUser(db: Queryable, columns: UserColumns): Promise<UserRow> {
  const names = Object.keys(columns);
  const { rows } = await db.query<UserRow>(
    `INSERT INTO users (${names.join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")}) RETURNING *`,
    Object.values(columns),
  );
  return rows[0]!;
}

export async function updateUser(
  db: Queryable,
  id: number,
  columns: UserColumns,
): Promise<UserRow | undefined> {
  const names = Object.keys(columns);
  const sets = names.map((n, i) => `${n} = $${i + 2}`);
  const { rows } = await db.query<UserRow>(
    `UPDATE users SET ${[...sets, "updated_at = now()"].join(", ")} WHERE id = $1 RETURNING *`,
    [id, ...Object.values(columns)],
  );
  return rows[0];
}

export async function deleteUser(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM users WHERE id = $1", [id]);
  return Boolean(rowCount);
}

/** Which of username/email already belong to another user (case-insensitive). */
export async function takenIdentity(
  db: Queryable,
  username: string | undefined,
  email: string | undefined,
  exceptId = 0,
) {
  const { rows } = await db.query<{ username_taken: boolean; email_taken: boolean }>(
    `SELECT bool_or(lower(username) = lower($1)) AS username_taken, bool_or(lower(email) = lower($2)) AS email_taken
       FROM users WHERE id <> $3 AND (lower(username) = lower($1) OR lower(email) = lower($2))`,
    [username ?? null, email ?? null, exceptId],
  );
  return { username: Boolean(rows[0]?.username_taken), email: Boolean(rows[0]?.email_taken) };
}
