export { groupsServiceDefinition } from "./service";
export { groupsConfigSchema, loadGroupsConfig, type GroupsConfig } from "./config";
