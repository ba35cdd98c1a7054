/**
 * The GitLab version Canopy answers like. The Version API reports it (clients choose features by
 * it) and webhooks send it as `User-Agent: GitLab/<version>`: both must say the same.
 */
export const GITLAB_VERSION = "17.5.0";
