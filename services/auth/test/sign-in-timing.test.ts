import { oauth } from "@canopy/protos";
import { passwordVerifications } from "../src/domain/passwords";
import { newUser, PASSWORD, startOAuthHarness, type OAuthHarness } from "./oauth-support";
import { unique } from "./support";
import { changeUserState, UserStateAction } from "./support";

// A refusal must not say which kind it is by how soon it comes: unknown, locked, blocked and
// wrong-password sign-ins each spend exactly one argon2 verification. Asserted by counting
// verifications (the service's metric), not by the clock.
let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(() => h.stop());

const R = oauth.SignInRefusal;
const verifications = async () => (await passwordVerifications.get()).values[0]?.value ?? 0;

async function verificationsFor(login: string, password: string) {
  const before = await verifications();
  const answer = await h.oauth.signIn({ login, password });
  return { answer, spent: (await verifications()) - before };
}

test("an unknown login, a wrong password, a locked and a blocked account each cost one verification", async () => {
  const { user } = await newUser(h);
  const { user: locked } = await newUser(h);
  const { user: blocked } = await newUser(h);
  await h.db.query("UPDATE users SET locked_until = now() + interval '10 minutes' WHERE id = $1", [
    locked.id,
  ]);
  await changeUserState(h.service, h.admin, blocked.id, UserStateAction.USER_STATE_ACTION_BLOCK);

  const cases = [
    { login: unique("nobody_"), password: PASSWORD, refusal: R.SIGN_IN_REFUSAL_INVALID },
    { login: user.username, password: "wrong-password", refusal: R.SIGN_IN_REFUSAL_INVALID },
    { login: locked.username, password: "wrong-password", refusal: R.SIGN_IN_REFUSAL_LOCKED },
    { login: locked.username, password: PASSWORD, refusal: R.SIGN_IN_REFUSAL_LOCKED },
    { login: blocked.username, password: PASSWORD, refusal: R.SIGN_IN_REFUSAL_BLOCKED },
    { login: "", password: "", refusal: R.SIGN_IN_REFUSAL_INVALID },
    { login: user.username, password: PASSWORD, refusal: R.SIGN_IN_REFUSAL_UNSPECIFIED },
  ];
  for (const { login, password, refusal } of cases) {
    const { answer, spent } = await verificationsFor(login, password);
    expect({ login, refusal: answer.refusal, spent }).toEqual({ login, refusal, spent: 1 });
  }
});

test("the password grant spends one verification for a locked account too", async () => {
  const { user } = await newUser(h);
  await h.db.query("UPDATE users SET locked_until = now() + interval '10 minutes' WHERE id = $1", [user.id]);
  const before = await verifications();
  const reply = await h.oauth.token({ grantType: "password", username: user.username, password: PASSWORD });
  expect(reply.error?.error).toBe("invalid_grant");
  expect((await verifications()) - before).toBe(1);
});
