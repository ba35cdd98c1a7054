/**
 * Words no path below a namespace may take (a subgroup's or a project's): GitLab's project wildcard
 * routes (lib/gitlab/path_regex.rb PROJECT_WILDCARD_ROUTES), compared in lower case.
 */
export const PROJECT_WILDCARD_ROUTES: ReadonlySet<string> = new Set([
  "-",
  "badges",
  "blame",
  "blob",
  "builds",
  "commits",
  "create",
  "create_dir",
  "edit",
  "files",
  "find_file",
  "new",
  "preview",
  "raw",
  "refs",
  "tree",
  "update",
  "wikis",
]);
