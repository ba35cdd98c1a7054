/**
 * What every page shares: the security headers (no framing, a strict CSP, no caching), the CSRF
 * check on every state-changing request, and escaping of whatever a user typed.
 */
import { createUser, type ApiUser, type Stack } from "./support";
import {
  actorFor,
  Browser,
  csrfTokenOf,
  expectHtmlPage,
  expectPageHeaders,
  oauthClient,
  startWebStack,
  type OAuthClient,
} from "./web-support";

// Every sign-in verifies an argon2 hash; with the other suites running in parallel that adds up.
jest.setTimeout(30_000);

let stack: Stack;
let grpc: OAuthClient;
beforeAll(async () => {
  stack = await startWebStack();
  grpc = oauthClient(stack);
}, 30_000);
afterAll(async () => {
  grpc.close();
  await stack.stop();
});

async function signedIn(): Promise<{ user: ApiUser; b: Browser }> {
  const user = await createUser(stack);
  const b = new Browser(stack.gw);
  expect((await b.signIn(user.username)).status).toBe(302);
  return { user, b };
}

const applicationsOf = async (user: ApiUser) =>
  (await grpc.listApplications({ actor: actorFor(user), instance: false })).applications;

const newApplication = (user: ApiUser, name = "App") =>
  grpc.createApplication({
    actor: actorFor(user),
    name,
    redirectUri: "https://client.example/cb",
    scopes: ["api"],
    confidential: true,
    trusted: false,
    instance: false,
  });

test("every page, redirect and error page carries the security headers", async () => {
  const { user, b } = await signedIn();
  const app = await newApplication(user);
  const anonymous = new Browser(stack.gw);
  const token = csrfTokenOf((await b.get("/profile/applications")).text);
  const authorize = (clientId: string) =>
    `/oauth/authorize?client_id=${clientId}&redirect_uri=https%3A%2F%2Fclient.example%2Fcb&response_type=code`;
  const pages = [
    await anonymous.get("/"),
    await anonymous.get("/users/sign_in"),
    await anonymous.get("/profile/applications"),
    await anonymous.get(authorize(app.application!.uid)),
    await b.get("/"),
    await b.get("/users/sign_in"),
    await b.get("/users/sign_out"),
    await b.get("/profile/applications"),
    await b.get("/-/user_settings/applications"),
    await b.get(authorize(app.application!.uid)),
    await b.get(authorize("unknown")),
    await b.post("/profile/applications", { name: "x" }),
    await b.post("/profile/applications/999999999/renew", { authenticity_token: token }),
  ];
  expect(pages.map((p) => p.status)).toEqual([
    200, 200, 302, 302, 200, 302, 200, 200, 200, 200, 400, 422, 404,
  ]);
  for (const page of pages) {
    expectPageHeaders(page);
    if (page.status !== 302) expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    // No scripts, and nothing to frame.
    expect(page.text).not.toContain("<script");
  }
  // The API keeps its own headers.
  const api = await stack.gw.get("/api/v4/version", { token: stack.rootToken });
  expect(api.headers.get("x-frame-options")).toBe("SAMEORIGIN");
  expect(api.headers.get("content-security-policy")).toBeNull();
});

describe("a state-changing request without this session's CSRF token is refused with 422 and changes nothing", () => {
  test("creating an application", async () => {
    const { user, b } = await signedIn();
    const fields = {
      name: "Forged",
      redirect_uri: "https://client.example/cb",
      "scopes[]": "api",
      confidential: "1",
    };
    const other = await signedIn();
    const otherToken = csrfTokenOf((await other.b.get("/profile/applications")).text);
    for (const authenticity_token of [undefined, "", "wrong", otherToken]) {
      const form = authenticity_token === undefined ? fields : { ...fields, authenticity_token };
      const res = await b.post("/profile/applications", form);
      expectHtmlPage(res, 422);
      expect(res.text).toContain("Invalid authenticity token");
    }
    expect(await applicationsOf(user)).toEqual([]);
    // The header form is accepted too (for scripts that read the token from the page).
    const page = await b.get("/profile/applications");
    const res = await fetch(`${stack.gw.base}/profile/applications`, {
      method: "POST",
      redirect: "manual",
      headers: {
        "X-Forwarded-For": b.ip,
        Cookie: `_canopy_session=${b.session}`,
        "Content-Type": "application/x-www-form-urlencoded",
        "X-CSRF-Token": csrfTokenOf(page.text),
      },
      body: new URLSearchParams(fields).toString(),
    });
    expect(res.status).toBe(200);
    expect(await applicationsOf(user)).toHaveLength(1);
  });

  test("renewing and deleting an application", async () => {
    const { user, b } = await signedIn();
    const { application } = await newApplication(user);
    for (const action of ["renew", "delete"]) {
      const res = await b.post(`/profile/applications/${application!.id}/${action}`, {
        authenticity_token: "nope",
      });
      expectHtmlPage(res, 422);
    }
    expect((await applicationsOf(user)).map((a) => a.id)).toEqual([application!.id]);
  });

  test("signing in (no login CSRF) and with no session at all", async () => {
    const user = await createUser(stack);
    const b = new Browser(stack.gw);
    await b.get("/users/sign_in");
    const forged = await b.post("/users/sign_in", {
      "user[login]": user.username,
      "user[password]": "s3cret-Passw0rd!",
    });
    expectHtmlPage(forged, 422);
    expect((await b.get("/profile/applications")).location).toBe("/users/sign_in");
    const cookieless = new Browser(stack.gw);
    const res = await cookieless.post("/users/sign_in", {
      authenticity_token: "anything",
      "user[login]": user.username,
    });
    expectHtmlPage(res, 422);
    expect(cookieless.session).toBeUndefined();
  });
});

test("what users type is escaped everywhere it is shown", async () => {
  const { user, b } = await signedIn();
  const evil = `"><script>alert(1)</script>`;
  await newApplication(user, evil);
  const list = await b.get("/profile/applications");
  expect(list.text).not.toContain("<script>");
  expect(list.text).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  const failed = await b.submit("/profile/applications", "/profile/applications", {
    name: evil,
    redirect_uri: `javascript:${evil}`,
  });
  expect(failed.text).not.toContain("<script>");
  expect(failed.text).toContain(`value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`);
  const signIn = await new Browser(stack.gw).submit("/users/sign_in", "/users/sign_in", {
    "user[login]": evil,
    "user[password]": "x",
  });
  expect(signIn.text).not.toContain("<script>");
  const { application } = await newApplication(user);
  const consent = await b.get(
    `/oauth/authorize?client_id=${application!.uid}&redirect_uri=https%3A%2F%2Fclient.example%2Fcb&response_type=code&state=${encodeURIComponent(evil)}`,
  );
  expectHtmlPage(consent);
  expect(consent.text).not.toContain("<script>");
  expect(consent.text).toContain(`name="state" value="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"`);
});
