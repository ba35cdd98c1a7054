import type { KV, NatsConnection } from "nats";
import { z } from "zod";
import { settings } from "@canopy/protos";

/**
 * Where the application settings live for their readers: one key in a NATS KV bucket holding the
 * latest snapshot (protobuf `canopy.auth.v1.ApplicationSettings`). The auth service writes it;
 * every other service reads and watches it, so no reader calls auth and every replica converges
 * on the same snapshot, also after a restart.
 */
export const SETTINGS_KEY = "application";

/** Configuration shared by the writer and the readers. */
export const settingsBucketConfig = {
  /** KV bucket of the settings snapshot; deployments sharing one NATS need different names. */
  CANOPY_SETTINGS_BUCKET: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/, "letters, digits, '_' or '-'")
    .default("canopy_settings"),
};

/** Opens the bucket, creating it when missing (idempotent across replicas); only the last value is kept. */
export const openSettingsBucket = (nc: NatsConnection, bucket: string): Promise<KV> =>
  nc.jetstream().views.kv(bucket, { history: 1 });

export const encodeSettings = (s: settings.ApplicationSettings) =>
  settings.ApplicationSettings.encode(s).finish();

export const decodeSettings = (bytes: Uint8Array) => settings.ApplicationSettings.decode(bytes);

/** GitLab's defaults; what a reader sees before auth has written its first snapshot. */
export const DEFAULT_APPLICATION_SETTINGS: settings.ApplicationSettings = {
  version: 0,
  allowLocalRequestsFromWebHooksAndServices: false,
  outboundLocalRequestsWhitelist: [],
  dnsRebindingProtectionEnabled: true,
  denyAllRequestsExceptAllowed: false,
  deletionAdjournedPeriod: 7,
  defaultGroupVisibility: "private",
  defaultProjectVisibility: "private",
  allowGroupOwnersToManageLdap: true,
  passwordAuthenticationEnabledForWeb: true,
  requireTwoFactorAuthentication: false,
  twoFactorGracePeriod: 48,
  signupEnabled: false,
};
