/**
 * Two-factor authentication on the web: enrolment on the profile page (QR code, secret, code plus
 * password, recovery codes shown once), the code step of sign-in bound to the half-signed-in session,
 * replay and recovery codes, turning it off; and the API's `two_factor_enabled`.
 */
import { generateSync } from "otplib";
import { createUser, PASSWORD, type ApiUser, type Stack } from "./support";
import { Browser, csrfTokenOf, expectHtmlPage, startWebStack } from "./web-support";

// Each test verifies several argon2 hashes; with other suites running in parallel that adds up.
jest.setTimeout(90_000);

let stack: Stack;
beforeAll(async () => {
  stack = await startWebStack();
}, 30_000);
afterAll(() => stack.stop());

const PAGE = "/-/profile/two_factor_auth";
const secretOf = (html: string) => /<code id="otp_secret">([A-Z2-7]+)<\/code>/.exec(html)?.[1] ?? "";
const codesOf = (html: string) =>
  [...html.matchAll(/<span class="recovery-code">([0-9a-f]{16})<\/span>/g)].map((m) => m[1]!);
/** The next step's code: enrolment spends the current one; one step of drift is accepted. */
const nextCode = (secret: string) => generateSync({ secret, epoch: Date.now() / 1000 + 30 });

async function signedIn(user: ApiUser) {
  const b = new Browser(stack.gw);
  expect((await b.signIn(user.username)).status).toBe(302);
  return b;
}

/** Signs in, enrols, signs out: the user's secret and recovery codes. */
async function enrolled() {
  const user = await createUser(stack);
  const b = await signedIn(user);
  const page = await b.get(PAGE);
  const secret = secretOf(page.text);
  const done = await b.post(PAGE, {
    authenticity_token: csrfTokenOf(page.text),
    pin_code: generateSync({ secret }),
    current_password: PASSWORD,
  });
  const recoveryCodes = codesOf(done.text);
  expect(recoveryCodes).toHaveLength(10);
  return { user, secret, recoveryCodes };
}

/** Posts the password; answers the code page (and the browser, now half signed in). */
async function passwordStep(user: ApiUser) {
  const b = new Browser(stack.gw);
  const page = await b.signIn(user.username);
  return { b, page };
}

const postCode = (b: Browser, page: { text: string }, code: string) =>
  b.post("/users/sign_in", { authenticity_token: csrfTokenOf(page.text), "user[otp_attempt]": code });

const apiUser = async (id: number) =>
  (await stack.gw.get(`/api/v4/users/${id}`, { token: stack.rootToken })).body;

test("the page needs a signed-in user, at both addresses", async () => {
  for (const path of [PAGE, "/profile/two_factor_auth"]) {
    const res = await new Browser(stack.gw).get(path);
    expect(res.status).toBe(302);
    expect(res.location).toBe("/users/sign_in");
  }
});

test("enrolment: a QR code and the secret; a wrong code or password is refused with GitLab's text", async () => {
  const user = await createUser(stack);
  const b = await signedIn(user);
  const page = await b.get(PAGE);
  expectHtmlPage(page);
  expect(page.text).toMatch(/<img src="data:image\/png;base64,[A-Za-z0-9+/=]+" alt="QR code/);
  const secret = secretOf(page.text);
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(secretOf((await b.get("/profile/two_factor_auth")).text)).toBe(secret);

  const csrf = csrfTokenOf(page.text);
  const wrongPin = await b.post(PAGE, {
    authenticity_token: csrf,
    pin_code: "000000",
    current_password: PASSWORD,
  });
  expectHtmlPage(wrongPin);
  expect(wrongPin.text).toContain("Invalid pin code.");
  const wrongPassword = await b.post(PAGE, {
    authenticity_token: csrf,
    pin_code: generateSync({ secret }),
    current_password: "not-my-password",
  });
  expect(wrongPassword.text).toContain("You must provide a valid current password.");
  expect(await apiUser(user.id)).toMatchObject({ two_factor_enabled: false });

  const ok = await b.post(PAGE, {
    authenticity_token: csrf,
    pin_code: generateSync({ secret }),
    current_password: PASSWORD,
  });
  expectHtmlPage(ok);
  expect(ok.text).toContain("Congratulations! You have enabled two-factor authentication!");
  expect(codesOf(ok.text)).toHaveLength(10);
  expect(await apiUser(user.id)).toMatchObject({ two_factor_enabled: true });
  // Shown once: the page now offers to turn it off, with no secret and no codes.
  const after = await b.get(PAGE);
  expect(after.text).toContain("Disable two-factor authentication");
  expect(secretOf(after.text)).toBe("");
  expect(codesOf(after.text)).toEqual([]);
});

test("sign-in asks for the code after the password; only the right code signs in", async () => {
  const { user, secret } = await enrolled();
  const { b, page } = await passwordStep(user);
  expectHtmlPage(page);
  expect(page.text).toContain('name="user[otp_attempt]"');
  // The password alone does not sign in.
  const half = b.session!;
  expect((await b.get("/profile/applications")).location).toBe("/users/sign_in");
  b.cookies.set("_canopy_session", half);

  const wrong = await postCode(b, page, "000000");
  expectHtmlPage(wrong);
  expect(wrong.text).toContain("Invalid two-factor code.");
  const ok = await postCode(b, wrong, nextCode(secret));
  expect(ok.status).toBe(302);
  expect(ok.location).toBe("/profile/applications");
  expect(b.session).not.toBe(half);
  expectHtmlPage(await b.get("/profile/applications"));
});

test("a code is accepted once: the same code in another half-signed-in session is refused", async () => {
  const { user, secret } = await enrolled();
  const code = nextCode(secret);
  const first = await passwordStep(user);
  expect((await postCode(first.b, first.page, code)).status).toBe(302);
  const second = await passwordStep(user);
  const replay = await postCode(second.b, second.page, code);
  expect(replay.status).toBe(200);
  expect(replay.text).toContain("Invalid two-factor code.");
});

test("a recovery code signs in once", async () => {
  const { user, recoveryCodes } = await enrolled();
  const first = await passwordStep(user);
  expect((await postCode(first.b, first.page, recoveryCodes[0]!)).location).toBe("/profile/applications");
  const second = await passwordStep(user);
  expect((await postCode(second.b, second.page, recoveryCodes[0]!)).text).toContain(
    "Invalid two-factor code.",
  );
});

test("a code without a password first is not looked at: back to the password form", async () => {
  const { secret } = await enrolled();
  const b = new Browser(stack.gw);
  const form = await b.get("/users/sign_in");
  const res = await postCode(b, form, nextCode(secret));
  expectHtmlPage(res);
  expect(res.text).toContain('name="user[password]"');
  expect((await b.get("/profile/applications")).location).toBe("/users/sign_in");
});

test("wrong codes lock the account: then the code step sends back with GitLab's message", async () => {
  const { user, secret } = await enrolled();
  const { b, page } = await passwordStep(user);
  let last = page;
  for (let i = 0; i < 10; i++) last = await postCode(b, last, "000000");
  expect(last.text).toContain("Your account is locked.");
  expect(last.text).toContain('name="user[password]"');
  const again = await passwordStep(user);
  expect(again.page.text).toContain("Invalid login or password.");
  expect(again.page.text).not.toContain("otp_attempt");
  expect(secret).not.toBe("");
});

test("turning it off needs the password; then the password alone signs in", async () => {
  const { user, secret } = await enrolled();
  const { b, page } = await passwordStep(user);
  expect((await postCode(b, page, nextCode(secret))).status).toBe(302);
  const settings = await b.get(PAGE);
  const csrf = csrfTokenOf(settings.text);
  const wrong = await b.post(PAGE, { authenticity_token: csrf, _method: "delete", current_password: "nope" });
  expect(wrong.text).toContain("You must provide a valid current password.");
  const off = await b.post(PAGE, { authenticity_token: csrf, _method: "delete", current_password: PASSWORD });
  expect(off.status).toBe(302);
  expect(off.location).toBe(PAGE);
  const shown = await b.get(PAGE);
  expect(shown.text).toContain("Two-factor authentication has been disabled successfully!");
  expect(secretOf(shown.text)).toMatch(/^[A-Z2-7]{32}$/);
  expect(await apiUser(user.id)).toMatchObject({ two_factor_enabled: false });
  expect((await new Browser(stack.gw).signIn(user.username)).location).toBe("/profile/applications");
});
