// Generated contracts, re-exported by package so callers write `auth.User`, `events.Event`.
export * as common from "./gen/canopy/common/v1/common";
export * as auth from "./gen/canopy/auth/v1/auth";
export * as events from "./gen/canopy/events/v1/events";
export { Timestamp } from "./gen/google/protobuf/timestamp";
export { AUTH_IDEMPOTENT_METHODS, SETTINGS_IDEMPOTENT_METHODS } from "./idempotent";
export * as oauth from "./gen/canopy/auth/v1/oauth";
export { OAUTH_SCOPES } from "./scopes";
export { AUTH_EVENTS, AUTH_SUBJECTS } from "./events/auth";
export * as settings from "./gen/canopy/auth/v1/settings";
