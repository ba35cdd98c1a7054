import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";

/** The Version API (GitLab lib/api/version.rb). */

/** The GitLab API version Canopy answers like; clients check it to choose features. */
export const GITLAB_VERSION = "17.5.0";

const noParams = {};

function showVersion({ ctx }: Call<typeof noParams>) {
  sendJson(ctx, 200, {
    version: GITLAB_VERSION,
    revision: process.env.CANOPY_REVISION ?? "canopy",
    kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
    enterprise: true,
  });
}

export const versionEndpoints = [
  endpoint({
    method: "GET",
    path: "/version",
    access: "user",
    scopes: ["read_user"],
    params: noParams,
    handler: showVersion,
  }),
];
