export { projectsServiceDefinition } from "./service";
export { projectsConfigSchema, loadProjectsConfig, type ProjectsConfig } from "./config";
