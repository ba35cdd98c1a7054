import { createHash, randomBytes } from "node:crypto";
import type { Queryable } from "../db";
import { ensureInstanceSecret, readInstanceSecret } from "./instance-secret";

/**
 * A service's instance key and, while a rotation is under way, the key before it. New digests and
 * sealed values always use `current`; lookups and openings also accept `previous`, and what is found
 * under it is moved to `current` (sealed values at start, token digests on use).
 */
export interface InstanceKeys {
  current: Buffer;
  previous: Buffer | null;
}

/** The value of CANOPY_SECRET_KEY_PREVIOUS that names the key generated into the database. */
export const GENERATED_KEY = "generated";

const keyOf = (configured: string) => createHash("sha256").update(configured).digest();

/**
 * CANOPY_SECRET_KEY when set, otherwise a key generated once into `instance_secrets` under `name`
 * (shared by every replica and restart). CANOPY_SECRET_KEY_PREVIOUS is the key being rotated away
 * from: its value, or `generated` for the key the database kept before CANOPY_SECRET_KEY was set.
 */
export async function loadInstanceKeys(
  db: Queryable,
  name: string,
  config: { CANOPY_SECRET_KEY?: string; CANOPY_SECRET_KEY_PREVIOUS?: string },
): Promise<InstanceKeys> {
  const configured = config.CANOPY_SECRET_KEY;
  const current = configured ? keyOf(configured) : await ensureInstanceSecret(db, name, randomBytes(32));
  const named = config.CANOPY_SECRET_KEY_PREVIOUS;
  const previous =
    named === GENERATED_KEY ? ((await readInstanceSecret(db, name)) ?? null) : named ? keyOf(named) : null;
  return { current, previous: previous && !previous.equals(current) ? previous : null };
}
