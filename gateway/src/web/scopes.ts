import { OAUTH_SCOPES } from "@canopy/protos";

/** The scopes the application form offers, in GitLab's order. */
export const FORM_SCOPES: readonly string[] = OAUTH_SCOPES;

/** One line per scope, after GitLab's `doorkeeper.scope_desc` locale, naming Canopy where it names GitLab. */
const DESCRIPTIONS: Record<string, string> = {
  api: "Grants complete read/write access to the API, including all groups and projects, the container registry, the dependency proxy, and the package registry.",
  read_api:
    "Grants read access to the API, including all groups and projects, the container registry, and the package registry.",
  read_user:
    "Grants read-only access to your profile through the /user API endpoint, which includes username, public email, and full name. Also grants access to read-only API endpoints under /users.",
  create_runner: "Grants create access to the runners.",
  manage_runner: "Grants access to manage the runners.",
  k8s_proxy: "Grants permission to perform Kubernetes API calls using the agent for Kubernetes.",
  read_repository:
    "Grants read-only access to repositories on private projects using Git-over-HTTP or the Repository Files API.",
  write_repository:
    "Grants read-write access to repositories on private projects using Git-over-HTTP (not using the API).",
  read_registry: "Grants read-only access to container registry images on private projects.",
  write_registry:
    "Grants write access to container registry images on private projects. You need both read and write access to push images.",
  sudo: "Grants permission to perform API actions as any user in the system, when authenticated as an admin user.",
  admin_mode: "Grants permission to perform API actions as an administrator, when Admin Mode is enabled.",
  openid:
    "Grants permission to authenticate with Canopy using OpenID Connect. Also gives read-only access to the user's profile and group memberships.",
  profile: "Grants read-only access to the user's profile data using OpenID Connect.",
  email: "Grants read-only access to the user's primary email address using OpenID Connect.",
};

export const describeScope = (scope: string) => DESCRIPTIONS[scope] ?? "";
