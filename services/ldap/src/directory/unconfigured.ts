import type { Directory } from "./directory";
import { DirectoryUnavailable } from "./directory";

/**
 * The directory until the kit's LDAP client is wired in: every search fails as a directory that
 * does not answer (syncs fail with the reason, nothing changes).
 */
export const unconfiguredDirectory = (): Directory => {
  const fail = (): never => {
    throw new DirectoryUnavailable("", "no LDAP directory client is configured");
  };
  return {
    findGroup: async () => fail(),
    childGroups: async () => fail(),
    searchPeople: async () => fail(),
    findPersonDn: async () => fail(),
    searchGroupCns: async () => fail(),
    groupCnsOf: async () => fail(),
    queries: 0,
    close: async () => {},
  };
};
