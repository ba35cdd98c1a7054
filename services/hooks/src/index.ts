export { hooksServiceDefinition } from "./service";
export { hooksConfigSchema, loadHooksConfig, type HooksConfig } from "./config";
export type { Deps as HooksDeps } from "./deps";
