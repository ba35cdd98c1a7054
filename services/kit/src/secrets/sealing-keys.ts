import type { InstanceKeys } from "./instance-keys";
import { derivedKey, open, seal } from "./secret-box";

/**
 * Seals values for one purpose under the current instance key and opens what either key sealed, so
 * a rotation never makes a stored secret unreadable; `reseal` moves a value to the current key.
 */
export class SealingKeys {
  private readonly current: Buffer;
  private readonly previous: Buffer | null;

  constructor(keys: InstanceKeys, purpose: string) {
    this.current = derivedKey(keys.current, purpose);
    this.previous = keys.previous && derivedKey(keys.previous, purpose);
  }

  /** Whether values sealed under an earlier key may still be stored (a rotation is under way). */
  get rotating(): boolean {
    return this.previous !== null;
  }

  seal(plaintext: string, context: string): Buffer {
    return seal(this.current, plaintext, context);
  }

  open(sealed: Buffer, context: string): string {
    try {
      return open(this.current, sealed, context);
    } catch (err) {
      if (!this.previous) throw err;
      return open(this.previous, sealed, context);
    }
  }

  /** The value sealed under the current key, or nothing when it already is. */
  reseal(sealed: Buffer, context: string): Buffer | undefined {
    try {
      open(this.current, sealed, context);
      return undefined;
    } catch {
      return this.seal(this.open(sealed, context), context);
    }
  }
}
