import { GITLAB_VERSION } from "@canopy/kit";
import { endpoint, type Call } from "../http/endpoint";
import { sendJson } from "../http/json";
import { READ_USER } from "../http/scopes";
import { Version } from "../entities/schemas";

/** The Version API (GitLab lib/api/version.rb). */

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
    scopes: READ_USER,
    params: noParams,
    handler: showVersion,
    responses: { 200: Version },
  }),
];
