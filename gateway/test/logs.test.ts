/**
 * Logs: after a workload that creates users with passwords, makes tokens, sends them in every place
 * a client may (headers, ?private_token=, ?access_token=, form bodies, Sudo) and runs into errors,
 * including a dependency that is down, no captured log line of the gateway or the auth service
 * contains a token, a password or any part of them.
 */
import {
  createToken,
  PASSWORD,
  ROOT_PASSWORD,
  signedInUser,
  startStack,
  unique,
  waitFor,
  type Gateway,
  type Stack,
} from "./support";

let stack: Stack;
let down: Gateway;
beforeAll(async () => {
  stack = await startStack();
  // A gateway whose auth service does not answer: its errors are logged with their details.
  down = await stack.addGateway({ CANOPY_AUTH_ADDRESS: "127.0.0.1:1" });
}, 30_000);
afterAll(() => stack.stop());

const secrets: string[] = [];
/** Tokens whose use the auth service records in the background (and might log). */
const usedTokenIds: number[] = [];

test("a dependency that is down is a 503 with a clear message, and readiness says which", async () => {
  const res = await down.get("/api/v4/user", { token: stack.rootToken });
  expect({ status: res.status, body: res.body }).toEqual({
    status: 503,
    body: { message: "503 Service Unavailable - auth service is not answering" },
  });
  expect(res.headers.get("content-type")).toBe("application/json");
  const ready = await down.get("/-/readiness");
  expect(ready.status).toBe(503);
  expect(ready.body).toMatchObject({
    status: "failed",
    failed: ["auth"],
    checks: { redis: "ok", nats: "ok" },
  });
  expect(stack.logs.text()).toContain("request failed");
}, 20_000);

test("a workload full of secrets", async () => {
  const gw = stack.gw;
  const username = unique("logged_");
  const password = `pw-${unique()}-${unique()}`;
  secrets.push(stack.rootToken, ROOT_PASSWORD, PASSWORD, password);
  const created = await gw.post("/api/v4/users", {
    token: stack.rootToken,
    json: { username, email: `${username}@example.com`, name: "Logged", password },
  });
  expect(created.status).toBe(201);
  const id = (created.body as { id: number }).id;
  // A failed create and an update that carry a password, in JSON and in a form.
  await gw.post("/api/v4/users", {
    token: stack.rootToken,
    json: { username, email: "x@example.com", name: "x", password },
  });
  await gw.put(`/api/v4/users/${id}`, { token: stack.rootToken, form: { password: `${password}-2` } });
  await gw.put(`/api/v4/users/${id}`, { token: stack.rootToken, json: { password: "short" } });
  secrets.push(`${password}-2`);

  const sudoer = await signedInUser(stack, ["api", "sudo"], { admin: true });
  const token = await createToken(stack, id, ["api"]);
  const readOnly = await createToken(stack, id, ["read_api"]);
  secrets.push(sudoer.secret, token.token, readOnly.token);
  usedTokenIds.push(token.id);

  await gw.get(`/api/v4/user?private_token=${token.token}`);
  await gw.get(`/api/v4/users?access_token=${token.token}&search=x`);
  await gw.get("/api/v4/user", { headers: { Authorization: `Bearer ${token.token}` } });
  await gw.get(`/api/v4/user?private_token=${token.token}`, {
    headers: { Authorization: `Bearer ${token.token}` },
  });
  await gw.post(`/api/v4/users?private_token=${readOnly.token}`, { json: {} });
  await gw.get("/api/v4/user", { headers: { Sudo: username, "PRIVATE-TOKEN": sudoer.secret } });
  await gw.get(`/api/v4/user?sudo=nobody&private_token=${sudoer.secret}`);
  await gw.get("/api/v4/user?private_token=glpat-this-one-is-unknown-000000");
  await gw.delete("/api/v4/personal_access_tokens/self", { form: { private_token: readOnly.token } });
  await gw.get(`/api/v4/user?private_token=${readOnly.token}`);
  await gw.get(`/api/v4/nothing?private_token=${token.token}`);
  await gw.post("/api/v4/users", {
    token: stack.rootToken,
    raw: `{"password":"${password}",`,
    headers: { "Content-Type": "application/json" },
  });
  await down.get(`/api/v4/users?private_token=${token.token}`);
  await down.get("/api/v4/user", { headers: { Authorization: `Bearer ${token.token}` } });
  await gw.post(`/api/v4/users/${id}/block`, { token: stack.rootToken });
  await gw.get("/api/v4/user", { token: token.token });
  secrets.push("glpat-this-one-is-unknown-000000");
}, 30_000);

test("no log line holds a token or a password", async () => {
  // Let the background work (recording a token's use) finish and log what it logs.
  await waitFor("token use to be recorded", async () => {
    const { rows } = await stack.db.query(
      "SELECT count(*)::int AS n FROM auth.personal_access_tokens WHERE id = ANY($1) AND last_used_at IS NOT NULL",
      [usedTokenIds],
    );
    return rows[0].n === usedTokenIds.length;
  });
  const lines = stack.logs.lines;
  expect(lines.length).toBeGreaterThan(20);
  for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  const requestLines = lines.map((l) => JSON.parse(l)).filter((r) => r.msg === "request");
  expect(requestLines.length).toBeGreaterThan(15);
  for (const r of requestLines) {
    expect(r).toMatchObject({ service: "gateway", request_id: expect.any(String), path: expect.any(String) });
    expect(r.path).not.toContain("?");
  }
  for (const secret of secrets) {
    const body = secret.startsWith("glpat-") ? secret.slice("glpat-".length) : secret;
    const leaking = lines.filter((l) => l.includes(body) || l.includes(encodeURIComponent(body)));
    expect({ secret: `${secret.slice(0, 8)}…`, leaking }).toEqual({
      secret: `${secret.slice(0, 8)}…`,
      leaking: [],
    });
  }
});
