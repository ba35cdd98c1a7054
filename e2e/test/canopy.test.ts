// End-to-end: the whole stack as `npm start` runs it, driven over HTTP by curl-like calls, by
// gitbeaker and python-gitlab, and for OAuth by headless Chromium and openid-client. One stack for
// every suite (starting one costs seconds on a small machine); the suites run in this order, and
// shutdown last.
import { OAuthWorld } from "./support/oauth-world";
import { Session } from "./support/session";
import { blocked } from "./suites/blocked";
import { doneWhen } from "./suites/done-when";
import { gitbeaker } from "./suites/gitbeaker";
import { gitbeakerGroups } from "./suites/gitbeaker-groups";
import { gitbeakerProjects } from "./suites/gitbeaker-projects";
import { logs } from "./suites/logs";
import { oauthCodeFlow } from "./suites/oauth-code-flow";
import { oauthPages } from "./suites/oauth-pages";
import { oauthPublicClient } from "./suites/oauth-public-client";
import { oauthRefreshRace } from "./suites/oauth-refresh-race";
import { pythonGitlabGroups } from "./suites/python-gitlab-groups";
import { pythonGitlabProjects } from "./suites/python-gitlab-projects";
import { revocation } from "./suites/revocation";
import { shutdown } from "./suites/shutdown";
import { twoFactor } from "./suites/two-factor";

jest.setTimeout(30_000);

const session = new Session();
const oauth = new OAuthWorld(session);

beforeAll(() => session.start(), 90_000);
afterAll(() => Promise.all([session.dispose(), oauth.dispose()]), 60_000);

doneWhen(session);
gitbeaker(session);
// Before logs: every password and token these suites make is then checked against every log line.
gitbeakerGroups(session);
pythonGitlabGroups(session);
gitbeakerProjects(session);
pythonGitlabProjects(session);
revocation(session);
blocked(session);
logs(session);
oauthPages(session, oauth);
oauthCodeFlow(session, oauth);
oauthPublicClient(session, oauth);
oauthRefreshRace(session, oauth);
twoFactor(session, oauth);
shutdown(session);
