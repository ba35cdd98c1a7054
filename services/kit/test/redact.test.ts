import { createLogger, REDACTED, redactDeep, redactText, requestContext } from "@canopy/kit";

const PAT = "glpat-Zx9yW8vU7tS6rQ5pO4nM";
const OAUTH = "gloas-Ab1Cd2Ef3Gh4Ij5Kl6Mn";

describe("redactDeep", () => {
  it("replaces sensitive keys at any depth, whatever their spelling", () => {
    const out = redactDeep({
      headers: { authorization: "Bearer abc", "PRIVATE-TOKEN": "plain-value", Cookie: "_session=1" },
      body: { user: { profile: { credentials: { password: "hunter2", Password_Confirmation: "hunter2" } } } },
      app: { client_secret: "s3cret", refresh_token: "r-tok", id_token: "eyJ" },
      batch: [{ a: { b: { c: { access_token: "tok-in-array" } } } }],
      pkce: { code_verifier: "verifier", api_key: "k" },
    });
    expect(out).toEqual({
      headers: { authorization: REDACTED, "PRIVATE-TOKEN": REDACTED, Cookie: REDACTED },
      body: { user: { profile: { credentials: { password: REDACTED, Password_Confirmation: REDACTED } } } },
      app: { client_secret: REDACTED, refresh_token: REDACTED, id_token: REDACTED },
      batch: [{ a: { b: { c: { access_token: REDACTED } } } }],
      pkce: { code_verifier: REDACTED, api_key: REDACTED },
    });
  });

  it("redacts a whole sensitive subtree, not only strings", () => {
    expect(redactDeep({ secret: { nested: "x" }, token: 123456 })).toEqual({
      secret: REDACTED,
      token: REDACTED,
    });
  });

  it("leaves non-secret keys and values untouched", () => {
    const record = {
      token_id: 42,
      code: 404,
      user_id: 7,
      username: "alice",
      scopes: ["api", "read_user"],
      token_name: "ci",
      created_at: new Date("2026-11-21T03:13:00.000Z"),
      body: Buffer.from("raw"),
      empty: null,
    };
    expect(redactDeep(record)).toEqual(record);
  });

  it("finds tokens and key=value secrets inside strings", () => {
    const out = redactDeep({
      url: `/api/v4/user?private_token=${PAT.slice(6)}&per_page=20`,
      note: `created ${PAT} and ${OAUTH}`,
      curl: "curl -H 'Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.payload.sig' /oauth/userinfo",
      form: "grant_type=authorization_code&code=SplxlOBeZQQYbYS6WxSbIA&client_secret=shh&redirect_uri=x",
    }) as Record<string, string>;
    expect(out.url).toBe("/api/v4/user?private_token=[REDACTED]&per_page=20");
    expect(out.note).toBe("created [REDACTED] and [REDACTED]");
    expect(out.curl).toBe("curl -H 'Authorization: [REDACTED]' /oauth/userinfo");
    expect(out.form).toBe(
      "grant_type=authorization_code&code=[REDACTED]&client_secret=[REDACTED]&redirect_uri=x",
    );
  });

  it("turns an Error into type, message and stack, all redacted", () => {
    const err = new TypeError(`fetch /user?access_token=${OAUTH} failed`);
    const out = redactDeep({ err }) as { err: { type: string; message: string; stack: string } };
    expect(out.err.type).toBe("TypeError");
    expect(out.err.message).toBe("fetch /user?access_token=[REDACTED] failed");
    expect(out.err.stack).toContain("access_token=[REDACTED]");
    expect(JSON.stringify(out)).not.toContain(OAUTH);
  });

  it("cuts off absurdly deep structures instead of recursing forever", () => {
    type Chain = { next?: Chain; password?: string };
    const chain: Chain = {};
    let tail = chain;
    for (let i = 0; i < 20; i++) tail = tail.next = { password: "deep-secret" };
    expect(JSON.stringify(redactDeep(chain))).not.toContain("deep-secret");
    expect(JSON.stringify(redactDeep(chain))).toContain("[Truncated]");
  });
});

describe("redactText", () => {
  it("keeps text without secrets as it is", () => {
    const text = "GET /api/v4/groups?page=2&per_page=20 code 200 token_id=5";
    expect(redactText(text)).toBe(text);
  });
});

/**
 * createLogger writes to stdout. pino writes to `process.stdout` itself (instead of fd 1) once its
 * `write` has been replaced, so a spy installed before the logger is created sees every record.
 */
function captureLogs(run: (log: ReturnType<typeof createLogger>) => void): string {
  const chunks: string[] = [];
  const spy = jest.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    chunks.push(String(chunk));
    return true;
  });
  try {
    run(createLogger("kit-test", "debug"));
  } finally {
    spy.mockRestore();
  }
  return chunks.join("");
}

const SECRETS = [
  PAT,
  PAT.slice(6),
  OAUTH,
  "hunter2-pw",
  "sekrit-bearer-123",
  "shh-its-secret",
  "child-secret-xyz",
  "grandchild-cookie",
];

describe("createLogger output", () => {
  const output = captureLogs((log) => {
    log.info(
      {
        req: { headers: { authorization: "Bearer sekrit-bearer-123", "private-token": PAT } },
        url: "/oauth/token?client_secret=shh-its-secret&grant_type=refresh_token",
      },
      `GET /api/v4/user?private_token=${PAT.slice(6)}`,
    );
    log.error({ err: new Error("connect failed: password=hunter2-pw") }, "database unreachable");
    log.warn({ err: new Error(`token ${OAUTH} was rejected`) });
    log.error(new Error(`token ${PAT} leaked into an error`));
    log.debug(`plain text with ${OAUTH}`);
    log
      .child({ component: "relay", authorization: "Bearer child-secret-xyz" })
      .child({ session: { cookie: "grandchild-cookie" } })
      .info("child says hi");
    requestContext.run({ requestId: "req-42" }, () => log.info("inside a request"));
  });
  const records = output
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

  it("writes one JSON record per call, with service, level name and ISO time", () => {
    expect(records).toHaveLength(7);
    for (const r of records) {
      expect(r.service).toBe("kit-test");
      expect(r.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(records.map((r) => r.level)).toEqual(["info", "error", "warn", "error", "debug", "info", "info"]);
  });

  it("never prints a secret, in any field, message or child binding", () => {
    for (const secret of SECRETS) expect(output).not.toContain(secret);
  });

  it("keeps what is not secret readable", () => {
    expect(records[0]!.msg).toBe("GET /api/v4/user?private_token=[REDACTED]");
    expect(records[0]!.url).toBe("/oauth/token?client_secret=[REDACTED]&grant_type=refresh_token");
    expect(records[1]).toMatchObject({
      msg: "database unreachable",
      err: { type: "Error", message: "connect failed: password=[REDACTED]" },
    });
    expect(records[2]!.msg).toBe("token [REDACTED] was rejected");
    expect(records[3]!.msg).toBe("token [REDACTED] leaked into an error");
    expect(records[5]).toMatchObject({
      component: "relay",
      authorization: REDACTED,
      session: { cookie: REDACTED },
      msg: "child says hi",
    });
  });

  it("adds the request id of the current request", () => {
    expect(records[6]).toMatchObject({ msg: "inside a request", request_id: "req-42" });
    expect(records[0]).not.toHaveProperty("request_id");
  });
});
