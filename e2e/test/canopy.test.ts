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
import { gitbeakerHooks } from "./suites/gitbeaker-hooks";
import { gitbeakerProjects } from "./suites/gitbeaker-projects";
import { logs } from "./suites/logs";
import { oauthCodeFlow } from "./suites/oauth-code-flow";
import { oauthPages } from "./suites/oauth-pages";
import { oauthPublicClient } from "./suites/oauth-public-client";
import { oauthRefreshRace } from "./suites/oauth-refresh-race";
import { openApi } from "./suites/openapi";
import { pythonGitlabGroups } from "./suites/python-gitlab-groups";
import { pythonGitlabHooks } from "./suites/python-gitlab-hooks";
import { pythonGitlabProjects } from "./suites/python-gitlab-projects";
import { pythonGitlabUsersProfile } from "./suites/python-gitlab-users-profile";
import { revocation } from "./suites/revocation";
import { shutdown } from "./suites/shutdown";
import { twoFactor } from "./suites/two-factor";
import { usersCustomAttributes } from "./suites/users-custom-attributes";
import { usersEvents } from "./suites/users-events";
import { usersProfile } from "./suites/users-profile";
import { pythonGitlabUsersState } from "./suites/python-gitlab-users-state";
import { usersState } from "./suites/users-state";
import { pythonGitlabUsersTokens } from "./suites/python-gitlab-users-tokens";
import { usersTokens } from "./suites/users-tokens";

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
// The plan (CANOPY_PLAN unset: ultimate) has group_webhooks, so events fire.
pythonGitlabHooks(session);
gitbeakerHooks(session);
usersCustomAttributes(session);
revocation(session);
blocked(session);
usersProfile(session);
pythonGitlabUsersProfile(session);
usersState(session);
pythonGitlabUsersState(session);
usersTokens(session);
pythonGitlabUsersTokens(session);
usersEvents(session);
logs(session);
oauthPages(session, oauth);
oauthCodeFlow(session, oauth);
oauthPublicClient(session, oauth);
oauthRefreshRace(session, oauth);
twoFactor(session, oauth);
// After every other suite that calls the API: it checks all their answers.
openApi(session);
shutdown(session);
