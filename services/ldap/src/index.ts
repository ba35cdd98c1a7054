export { ldapServiceDefinition } from "./service";
export { ldapConfigSchema, loadLdapConfig, type LdapServiceConfig } from "./config";
