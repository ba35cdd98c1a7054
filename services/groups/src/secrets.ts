import { createHash, randomBytes } from "node:crypto";
import { derivedKey, ensureInstanceSecret, type Queryable } from "@canopy/kit";

/**
 * The key that seals this service's secrets at rest (runners tokens), derived for that one purpose
 * from the instance key: CANOPY_SECRET_KEY when set, otherwise a key generated once and kept in
 * `instance_secrets`, so every replica and every restart opens what another sealed.
 */
export async function runnersTokenKey(db: Queryable, configured?: string): Promise<Buffer> {
  const instanceKey = configured
    ? createHash("sha256").update(configured).digest()
    : await ensureInstanceSecret(db, "instance_key", randomBytes(32));
  return derivedKey(instanceKey, "groups-runners-token");
}
