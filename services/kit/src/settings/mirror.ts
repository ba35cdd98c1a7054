import type { KV } from "nats";
import type { settings } from "@canopy/protos";
import { encodeSettings, SETTINGS_KEY } from "./bucket";

/**
 * The writer's side of the settings bucket (the auth service): makes the KV entry equal to the
 * stored row. Replicas race (one may still be mirroring version 5 when another has committed
 * version 6), so the row is read *after* the entry: whatever a replica mirrored had committed
 * before, so the row read is at least as new, and writing it never takes the bucket back. The
 * write is a compare-and-set on the entry's revision; losing it means someone wrote meanwhile:
 * look again. A bucket holding another history (a restored database) is corrected the same way.
 */
export class ApplicationSettingsMirror {
  constructor(private readonly kv: KV) {}

  /** Writes what `readStored` answers unless the bucket already holds exactly that. */
  async sync(readStored: () => Promise<settings.ApplicationSettings>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const held = await this.kv.get(SETTINGS_KEY);
      const stored = encodeSettings(await readStored());
      if (held && Buffer.from(held.value).equals(stored)) return;
      try {
        if (held) await this.kv.update(SETTINGS_KEY, stored, held.revision);
        else await this.kv.create(SETTINGS_KEY, stored);
        return;
      } catch (err) {
        if (attempt >= 5) throw err;
      }
    }
  }
}
