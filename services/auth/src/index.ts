export { authServiceDefinition } from "./service";
export { authConfigSchema, loadAuthConfig, type AuthConfig } from "./config";
export { ROOT_TOKEN_NAME } from "./bootstrap";
