import type { KV, KvEntry, QueuedIterator } from "nats";
import type { Logger } from "pino";
import type { settings } from "@canopy/protos";
import { decodeSettings, DEFAULT_APPLICATION_SETTINGS, SETTINGS_KEY } from "./bucket";

/**
 * A reader's current application settings, for any service: loaded from the KV bucket at start
 * and kept up to date by a watch. The state is in NATS, so every replica sees the same snapshot;
 * the copy here is only the latest one delivered. Before auth's first snapshot, GitLab's defaults.
 */
export class ApplicationSettingsView {
  private latest: settings.ApplicationSettings = DEFAULT_APPLICATION_SETTINGS;
  private revision = 0;
  private readonly done: Promise<void>;

  private constructor(
    private readonly watch: QueuedIterator<KvEntry>,
    log: Logger,
  ) {
    this.done = (async () => {
      for await (const entry of watch) this.take(entry);
    })().catch((err) => log.warn({ err }, "application settings watch ended"));
  }

  /** Opens the view: the current snapshot is loaded before this resolves. */
  static async open(kv: KV, log: Logger): Promise<ApplicationSettingsView> {
    const view = new ApplicationSettingsView(await kv.watch({ key: SETTINGS_KEY }), log);
    const entry = await kv.get(SETTINGS_KEY);
    if (entry) view.take(entry);
    return view;
  }

  /** The latest snapshot delivered. */
  current(): settings.ApplicationSettings {
    return this.latest;
  }

  async stop(): Promise<void> {
    this.watch.stop();
    await this.done;
  }

  private take(entry: KvEntry) {
    // The initial read and the watch may deliver the same entries in either order: the bucket's
    // revision, not arrival, says which is newer.
    if (entry.operation !== "PUT" || !entry.value.length || entry.revision <= this.revision) return;
    this.revision = entry.revision;
    this.latest = decodeSettings(entry.value);
  }
}
