/**
 * The applications pages: list, create (the secret shown once), renew, delete, validation errors,
 * at both GitLab addresses, and only ever on the signed-in user's own applications.
 */
import { createAdmin, createUser, PASSWORD, type ApiUser, type Stack } from "./support";
import { Browser, csrfTokenOf, expectHtmlPage, hiddenValue, startWebStack, type Page } from "./web-support";

// Every sign-in verifies an argon2 hash; with the other suites running in parallel that adds up.
jest.setTimeout(30_000);

let stack: Stack;
beforeAll(async () => {
  stack = await startWebStack();
}, 30_000);
afterAll(() => stack.stop());

async function signedIn(): Promise<{ user: ApiUser; b: Browser }> {
  const user = await createUser(stack);
  const b = new Browser(stack.gw);
  expect((await b.signIn(user.username)).status).toBe(302);
  return { user, b };
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;
const secretOf = (page: Page) => /gloas-[0-9a-f]{64}/.exec(page.text)?.[0];
const uidOf = (page: Page) => /<dt>Application ID<\/dt><dd><code>([0-9a-f]{64})<\/code>/.exec(page.text)?.[1];

async function create(b: Browser, fields: Record<string, string | string[]>, base = "/profile/applications") {
  return b.submit(base, base, {
    name: "My app",
    redirect_uri: "https://client.example/cb",
    "scopes[]": ["api"],
    confidential: "1",
    ...fields,
  });
}

test("anonymous visitors are sent to sign in and brought back", async () => {
  const user = await createUser(stack);
  for (const base of ["/profile/applications", "/-/user_settings/applications"]) {
    const b = new Browser(stack.gw);
    const res = await b.get(base);
    expect(res.status).toBe(302);
    expect(res.location).toBe("/users/sign_in");
    expect((await b.signIn(user.username)).location).toBe(base);
  }
});

test("the form: GitLab's labels, one checkbox per scope, Confidential on by default, Trusted only for admins", async () => {
  const { b } = await signedIn();
  const page = await b.get("/profile/applications");
  expectHtmlPage(page);
  expect(page.text).toContain('<label for="application_name">Name</label>');
  expect(page.text).toContain('<label for="application_redirect_uri">Redirect URI</label>');
  expect(page.text).toContain('<textarea id="application_redirect_uri" name="redirect_uri"');
  expect(page.text).toMatch(
    /<input type="checkbox" id="application_confidential" name="confidential" value="1" checked>Confidential<\/label>/,
  );
  const scopes = [...page.text.matchAll(/name="scopes\[\]" value="([a-z0-9_]+)">([a-z0-9_]+)<\/label>/g)];
  expect(scopes.map((m) => m[1])).toEqual([
    "api",
    "read_api",
    "read_user",
    "create_runner",
    "manage_runner",
    "k8s_proxy",
    "read_repository",
    "write_repository",
    "read_registry",
    "write_registry",
    "sudo",
    "admin_mode",
    "openid",
    "profile",
    "email",
  ]);
  expect(scopes.every((m) => m[1] === m[2])).toBe(true);
  expect(page.text).toContain('<button type="submit">Save application</button>');
  expect(page.text).not.toContain("Trusted");
  expect(page.text).toContain("You don't have any applications.");

  const root = new Browser(stack.gw);
  await root.signIn((await createAdmin(stack)).username, PASSWORD);
  expect((await root.get("/profile/applications")).text).toContain(
    'name="trusted" value="1">Trusted</label>',
  );
});

test("creating shows the Application ID and the secret once; the list never shows the secret", async () => {
  const { b } = await signedIn();
  const res = await create(b, {
    name: "Ship <it>",
    redirect_uri: "https://client.example/cb\nmyapp://callback",
    "scopes[]": ["read_user", "openid"],
  });
  expectHtmlPage(res);
  expect(res.text).toContain("Application: Ship &lt;it&gt;");
  expect(res.text).toContain("<dt>Application ID</dt>");
  expect(res.text).toContain("<dt>Secret</dt>");
  expect(res.text).toContain("it won't be shown again");
  const secret = secretOf(res)!;
  const uid = uidOf(res)!;
  expect(secret).toBeDefined();
  expect(uid).toBeDefined();
  expect(occurrences(res.text, secret)).toBe(1);

  const list = await b.get("/profile/applications");
  expect(list.text).not.toContain(secret);
  expect(list.text).not.toMatch(/gloas-/);
  expect(list.text).toContain(uid);
  expect(list.text).toContain("Ship &lt;it&gt;");
  expect(list.text).toContain("<div>https://client.example/cb</div><div>myapp://callback</div>");
  expect(list.text).toContain("<td>read_user openid</td>");
  expect(list.text).toContain("Your applications (1)");
});

test("an unchecked Confidential makes a public application; the other address works the same", async () => {
  const { b } = await signedIn();
  const base = "/-/user_settings/applications";
  const res = await b.submit(base, base, {
    name: "SPA",
    redirect_uri: "http://127.0.0.1:9000/cb",
    "scopes[]": "api",
  });
  expectHtmlPage(res);
  expect(res.text).toContain("<dt>Confidential</dt><dd>No</dd>");
  expect(res.text).toContain(`href="${base}"`);
  const list = await b.get(base);
  expect(list.text).toMatch(/<td>No<\/td>/);
});

test("validation errors re-render the form with GitLab's messages and what was typed; nothing is created", async () => {
  const { b } = await signedIn();
  const res = await create(b, {
    name: "Typed name",
    redirect_uri: "http://[invalid",
    "scopes[]": ["api", "email"],
    confidential: "",
  });
  expectHtmlPage(res);
  expect(res.text).toContain("Redirect URI must be a valid URI.");
  expect(res.text).toContain('value="Typed name"');
  expect(res.text).toContain(">http://[invalid</textarea>");
  expect(res.text).toMatch(/value="email" checked>email/);
  expect(res.text).not.toMatch(/value="read_api" checked>/);
  expect(res.text).not.toMatch(/id="application_confidential" name="confidential" value="1" checked/);
  expect(res.text).toContain("You don't have any applications.");

  const blank = await create(b, { name: " ", redirect_uri: "javascript:alert(1)" });
  expect(blank.text).toContain("Name can&#39;t be blank");
  expect(blank.text).toContain("Redirect URI is forbidden by the server.");
  const unknownScope = await create(b, { "scopes[]": ["api", "write_everything"] });
  expect(unknownScope.text).toContain("Scopes doesn&#39;t match configured on the server.");
  // Without a scope an application could ask for any (sudo, admin_mode): one is required, as the API does.
  const noScope = await create(b, { "scopes[]": [] });
  expect(noScope.text).toContain("Scopes can&#39;t be blank");
  expect((await b.get("/profile/applications")).text).toContain("You don't have any applications.");
});

test("renewing shows a new secret once; deleting removes the application", async () => {
  const { b } = await signedIn();
  const created = await create(b, {});
  const first = secretOf(created)!;
  const list = await b.get("/profile/applications");
  const id = /action="\/profile\/applications\/(\d+)\/renew"/.exec(list.text)![1]!;
  const token = csrfTokenOf(list.text);

  const renewed = await b.post(`/profile/applications/${id}/renew`, { authenticity_token: token });
  expectHtmlPage(renewed);
  const second = secretOf(renewed)!;
  expect(second).not.toBe(first);
  expect(occurrences(renewed.text, second)).toBe(1);
  expect(renewed.text).toContain("Application secret was successfully updated.");
  expect(uidOf(renewed)).toBe(uidOf(created));

  const deleted = await b.post(`/profile/applications/${id}/delete`, { authenticity_token: token });
  expect(deleted.status).toBe(302);
  expect(deleted.location).toBe("/profile/applications");
  const after = await b.get("/profile/applications");
  expect(after.text).toContain("The application was deleted successfully.");
  expect(after.text).toContain("You don't have any applications.");
  // The notice is shown once.
  expect((await b.get("/profile/applications")).text).not.toContain("deleted successfully");
  expect((await b.post(`/profile/applications/${id}/delete`, { authenticity_token: token })).status).toBe(
    404,
  );
});

test("another user's application cannot be renewed or deleted (404 page)", async () => {
  const owner = await signedIn();
  await create(owner.b, {});
  const id = /\/profile\/applications\/(\d+)\/renew/.exec(
    (await owner.b.get("/profile/applications")).text,
  )![1]!;
  const { b } = await signedIn();
  const token = csrfTokenOf((await b.get("/profile/applications")).text);
  for (const action of ["renew", "delete"]) {
    const res = await b.post(`/profile/applications/${id}/${action}`, { authenticity_token: token });
    expectHtmlPage(res, 404);
    expect(res.text).toContain("404 Application Not Found");
    expect(res.text).not.toMatch(/gloas-/);
  }
  expectHtmlPage(await b.post("/profile/applications/abc/delete", { authenticity_token: token }), 404);
  expect((await owner.b.get("/profile/applications")).text).toContain("Your applications (1)");
});

test("an administrator can mark an application trusted", async () => {
  const root = new Browser(stack.gw);
  await root.signIn((await createAdmin(stack)).username, PASSWORD);
  const res = await create(root, { name: "Trusted tool", trusted: "1" });
  expect(res.text).toContain("<dt>Trusted</dt><dd>Yes</dd>");
  expect(hiddenValue(res.text, "authenticity_token")).toBeUndefined();
  // A non-admin's `trusted` is ignored.
  const { b } = await signedIn();
  expect((await create(b, { trusted: "1" })).text).not.toContain("<dt>Trusted</dt>");
});
