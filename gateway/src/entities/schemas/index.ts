/** Every response entity schema; importing this registers them all (entityRegistry). */
export * from "./registry";
export * from "./errors";
export * from "./users";
export * from "./projects";
export * from "./groups";
export * from "./hooks";
export * from "./events";
