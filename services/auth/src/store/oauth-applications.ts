import type { Queryable } from "@canopy/kit";
import type { oauth } from "@canopy/protos";

export interface ApplicationRow {
  id: number;
  name: string;
  uid: string;
  secret_digest: string;
  redirect_uri: string;
  scopes: string[];
  confidential: boolean;
  trusted: boolean;
  owner_id: number | null;
  created_at: Date;
}

export const toApplication = (r: ApplicationRow): oauth.Application => ({
  id: r.id,
  name: r.name,
  uid: r.uid,
  redirectUri: r.redirect_uri,
  scopes: r.scopes,
  confidential: r.confidential,
  trusted: r.trusted,
  ownerId: r.owner_id ?? 0,
  createdAt: r.created_at,
});

export async function insertApplication(
  db: Queryable,
  a: Omit<ApplicationRow, "id" | "created_at">,
): Promise<ApplicationRow> {
  const { rows } = await db.query<ApplicationRow>(
    `INSERT INTO oauth_applications (name, uid, secret_digest, redirect_uri, scopes, confidential, trusted, owner_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
    [a.name, a.uid, a.secret_digest, a.redirect_uri, a.scopes, a.confidential, a.trusted, a.owner_id],
  );
  return rows[0]!;
}

export async function findApplicationByUid(db: Queryable, uid: string): Promise<ApplicationRow | undefined> {
  const { rows } = await db.query<ApplicationRow>({
    name: "oauth-application-by-uid",
    text: "SELECT * FROM oauth_applications WHERE uid = $1",
    values: [uid],
  });
  return rows[0];
}

export async function findApplicationById(db: Queryable, id: number): Promise<ApplicationRow | undefined> {
  const { rows } = await db.query<ApplicationRow>("SELECT * FROM oauth_applications WHERE id = $1", [id]);
  return rows[0];
}

/** An owner's applications, or (ownerId null) the instance-wide ones. */
export async function listApplications(db: Queryable, ownerId: number | null): Promise<ApplicationRow[]> {
  const { rows } = await db.query<ApplicationRow>(
    "SELECT * FROM oauth_applications WHERE owner_id IS NOT DISTINCT FROM $1 ORDER BY id",
    [ownerId],
  );
  return rows;
}

export async function deleteApplication(db: Queryable, id: number): Promise<boolean> {
  const { rowCount } = await db.query("DELETE FROM oauth_applications WHERE id = $1", [id]);
  return Boolean(rowCount);
}

export async function setApplicationSecret(
  db: Queryable,
  id: number,
  digest: string,
): Promise<ApplicationRow | undefined> {
  const { rows } = await db.query<ApplicationRow>(
    "UPDATE oauth_applications SET secret_digest = $2, updated_at = now() WHERE id = $1 RETURNING *",
    [id, digest],
  );
  return rows[0];
}

/** Whether the application is confidential; undefined when there is no such application. */
export async function isApplicationConfidential(db: Queryable, id: number): Promise<boolean | undefined> {
  const { rows } = await db.query<{ confidential: boolean }>(
    "SELECT confidential FROM oauth_applications WHERE id = $1",
    [id],
  );
  return rows[0]?.confidential;
}

/**
 * After a key rotation: the secret's digest under the current key, unless the secret was renewed
 * meanwhile (the row no longer holds the digest it was found under).
 */
export async function moveSecretDigest(db: Queryable, id: number, from: string, to: string): Promise<void> {
  await db.query("UPDATE oauth_applications SET secret_digest = $3 WHERE id = $1 AND secret_digest = $2", [
    id,
    from,
    to,
  ]);
}
