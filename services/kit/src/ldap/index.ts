/**
 * LDAP for every service that needs it (auth signs people in, ldap syncs groups): the servers'
 * configuration, DNs as GitLab normalizes them, and sessions with a directory.
 */
export * from "./config";
export * from "./dn";
export { parseLdapFilter, escapeLdapFilterValue } from "./filter";
export { LdapConnectionError, connectToLdap, tlsOptionsFor } from "./connection";
export * from "./directory";
export * from "./groups";
export * from "./person";
export * from "./authenticate";
