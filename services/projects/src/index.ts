export { projectsServiceDefinition } from "./service";
export { projectsConfigSchema, loadProjectsConfig, type ProjectsConfig } from "./config";
/** The settings every project answer carries (the gateway's entity schema test builds from it). */
export { settingsView } from "./domain/project-settings";
