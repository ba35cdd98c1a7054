import type { Deps } from "../deps";
import { currentSettings } from "../finders/application-settings";

/** Copies the stored settings into the KV bucket unless it already holds them (start, and a periodic repair). */
export async function mirrorSettings(deps: Deps): Promise<void> {
  await deps.settingsMirror.publish(await currentSettings(deps));
}
