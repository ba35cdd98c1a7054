export { authServiceDefinition } from "./service";
export { authConfigSchema, loadAuthConfig, type AuthConfig } from "./config";
export { ROOT_TOKEN_NAME } from "./bootstrap";
/** The scheduled LDAP user check, for tests that run it at a moment of their choosing. */
export { checkDueLdapUsers, type LdapCheckRun } from "./commands/ldap-user-check";
export type { Deps as AuthDeps } from "./deps";
