/**
 * The test harness every service's tests share (`@canopy/kit/testing`): a service started in-process
 * with the real skeleton on free ports and real clients to it, a throwaway schema, unique names,
 * polling waits, recorded logs. Tests talk to real PostgreSQL, Redis and NATS.
 */
export * from "./database";
export * from "./dates";
export * from "./filled-client";
export * from "./logs";
export * from "./names";
export * from "./service";
export * from "./wait-for";
export * from "./failures";
export * from "./slapd";
export * from "./ldap-server";
export * from "./own-nats";
export * from "./own-postgres";
export * from "./own-redis";
export * from "./list-count-generations";
