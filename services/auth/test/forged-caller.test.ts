import { generateKeyPairSync } from "node:crypto";
import { CallSigner, createClient, type ClientOptions } from "@canopy/kit";
import { auth } from "@canopy/protos";
import {
  countTokensOf,
  createUser,
  failed,
  failure,
  startHarness,
  status,
  unique,
  type Harness,
} from "./support";

// Anyone who reaches the auth service's port could once send an administrator's actor and mint a
// token for any user. Only calls the gateway signed are answered now.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());

type Definition = typeof auth.AuthServiceService;

/** A caller that is not the gateway: no signer, or a key of its own. */
function attacker(options: Partial<ClientOptions<Definition>> = {}) {
  return createClient(auth.AuthServiceService, {
    address: h.service.address,
    idempotent: [],
    ...options,
  });
}

const tokenFor = (userId: number) =>
  auth.CreatePersonalAccessTokenRequest.fromPartial({
    actor: h.admin,
    userId,
    name: unique("forged-"),
    scopes: ["api"],
  });

describe("a caller that is not the gateway", () => {
  it.each([
    ["sends no assertion", {}],
    ["signs with a key of its own", { signer: new CallSigner(generateKeyPairSync("ed25519").privateKey) }],
  ])("claiming to be root, %s: UNAUTHENTICATED, and no token is created", async (_, options) => {
    const victim = await createUser(h);
    const client = attacker(options);
    try {
      const result = await failure(client.createPersonalAccessToken(tokenFor(victim.id)));
      expect(result).toEqual(failed(status.UNAUTHENTICATED));
    } finally {
      client.close();
    }
    expect(await countTokensOf(h.db, victim.id)).toBe(0);
  });

  it("the same request through the gateway's signer creates the token (the control)", async () => {
    const victim = await createUser(h);
    await h.rpc.createPersonalAccessToken(tokenFor(victim.id));
    expect(await countTokensOf(h.db, victim.id)).toBe(1);
  });
});
