import type { KV } from "nats";
import type { settings } from "@canopy/protos";
import { decodeSettings, encodeSettings, SETTINGS_KEY } from "./bucket";

/**
 * The writer's side of the settings bucket (the auth service). Replicas race: one may still be
 * mirroring version 5 when another has committed version 6. A snapshot is therefore written only
 * over an older one, with compare-and-set on the entry's revision, so the bucket never goes back.
 */
export class ApplicationSettingsMirror {
  constructor(private readonly kv: KV) {}

  /** Writes `snapshot` unless the bucket already holds it or a newer one. */
  async publish(snapshot: settings.ApplicationSettings): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const held = await this.kv.get(SETTINGS_KEY);
      const current = held?.value.length ? decodeSettings(held.value) : undefined;
      if (current && current.version >= snapshot.version) return;
      try {
        if (held) await this.kv.update(SETTINGS_KEY, encodeSettings(snapshot), held.revision);
        else await this.kv.create(SETTINGS_KEY, encodeSettings(snapshot));
        return;
      } catch (err) {
        // Another replica wrote between our read and our write: read again and decide again.
        if (attempt >= 5) throw err;
      }
    }
  }
}
