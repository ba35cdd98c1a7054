/**
 * Fuzz over EVERY /api/v4 endpoint, generated from the endpoint declarations (routes/api.ts): a
 * new endpoint is covered without a test of its own. Each is called as anonymous, a user and an
 * administrator with malformed path segments, query values, JSON and form bodies (wrong types,
 * huge numbers, NUL, unicode, injection strings, nested JSON) and wrong content types. Whatever
 * the answer, it is never a 5xx. Path ids are never valid, so nothing real is deleted or blocked.
 */
import { API_ENDPOINTS } from "../src/routes/api";
import type { Endpoint } from "../src/http/endpoint";
import { isFileParam } from "../src/http/params";
import { createToken, signedInUser, startStack, type RequestOptions, type Stack } from "./support";

let stack: Stack;
let user: { id: number; secret: string };
let admin: { id: number; secret: string };
beforeAll(async () => {
  stack = await startStack({ ldap: {} });
  const u = await signedInUser(stack, ["api"]);
  const a = await signedInUser(stack, ["api", "sudo"], { admin: true });
  user = { id: u.user.id, secret: u.secret };
  admin = { id: a.user.id, secret: a.secret };
}, 30_000);
afterAll(() => stack.stop(), 30_000);

/** Path segments, already URL-encoded as a client would send them. */
const PATH_VALUES = [
  "abc",
  "99999999999999999999999",
  "-1",
  "0",
  "%00",
  "a%00b",
  "1.5",
  "%E2%9C%93%F0%9F%9A%80",
  "1%27%20OR%20%271%27%3D%271",
  "a%2F%2Fb",
  "%2E%2E%2F%2E%2E",
  "x".repeat(3000),
  "%FF%FE", // not UTF-8
];

/** Text values for the query string and form bodies. */
const TEXT_VALUES = [
  "\u0000",
  "a\u0000b",
  "99999999999999999999999",
  "2147483648",
  "-2147483649",
  "1e309",
  "NaN",
  "",
  "' OR '1'='1",
  "'; DROP TABLE users; --",
  "${jndi:ldap://x}",
  "<script>alert(1)</script>",
  "Zoë 山田 🚀 \u202e\uFEFF",
  "x".repeat(20_000),
  "[]",
  '{"a":1}',
];

/** Values for JSON bodies: every type where another is expected, and deep nesting. */
const JSON_VALUES: unknown[] = [
  null,
  true,
  1.5,
  -1,
  2 ** 53 + 2,
  1e308,
  [],
  [[["deep"]]],
  {},
  { a: { b: { c: "\u0000" } } },
  ["\u0000"],
  "x".repeat(20_000),
  "a\u0000b",
  JSON.parse("[".repeat(40) + "]".repeat(40)),
];

/** Bodies a JSON API does not expect, with the headers that announce them. */
const ODD_BODIES: RequestOptions[] = [
  { raw: "not gzip", headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" } },
  { raw: "name=x", headers: { "Content-Type": "text/plain" } },
  { raw: "<user><name>x</name></user>", headers: { "Content-Type": "application/xml" } },
  { raw: '{"name": "x",', headers: { "Content-Type": "application/json" } },
  { raw: "--x\r\nbroken", headers: { "Content-Type": "multipart/form-data; boundary=x" } },
  { raw: "%%%=%%&a[b][c][d]=1&=x", headers: { "Content-Type": "application/x-www-form-urlencoded" } },
  { raw: "x", headers: { "Content-Type": "application/json; charset=utf-7" } },
];

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

/** A multipart body whose every named field is a file part of junk bytes (not an image, not UTF-8). */
function fileParts(fields: string[]): RequestOptions {
  const boundary = "fuzzBoundary7MA4YWxk";
  const junk = Buffer.from([0xff, 0xd8, 0x00, 0x3c, 0x73, 0x76, 0x67, 0xfe, 0x00, 0x89]);
  const parts = fields.map((f) =>
    Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f}"; filename="x\u0000.png"\r\n`),
      Buffer.from("Content-Type: image/png\r\n\r\n"),
      junk,
      Buffer.from("\r\n"),
    ]),
  );
  return {
    raw: Buffer.concat([...parts, Buffer.from(`--${boundary}--\r\n`)]),
    headers: { "Content-Type": `multipart/form-data; boundary=${boundary}` },
  };
}
const names = (e: Endpoint) => [...Object.keys(e.params), "sudo_not", "unknown", "page"];

/** The endpoint's path with every `:param` replaced by a malformed segment. */
const pathOf = (e: Endpoint, i: number) =>
  `/api/v4${e.path.replace(/:[a-z_]+/g, () => pick(PATH_VALUES, i++))}`;

/** The requests sent to one endpoint: each varies path, query and body together. */
function requestsFor(e: Endpoint): { path: string; options: RequestOptions }[] {
  const requests: { path: string; options: RequestOptions }[] = [];
  for (let i = 0; i < 4; i++) {
    const query = names(e)
      .map((n, j) => `${encodeURIComponent(n)}=${encodeURIComponent(pick(TEXT_VALUES, i * 3 + j))}`)
      .join("&");
    const path = pathOf(e, i);
    const json = Object.fromEntries(names(e).map((n, j) => [n, pick(JSON_VALUES, i * 5 + j)]));
    const form = Object.fromEntries(names(e).map((n, j) => [n, pick(TEXT_VALUES, i * 7 + j)]));
    const odd = pick(ODD_BODIES, i);
    requests.push({ path: `${path}?${query}`, options: {} });
    if (e.method === "GET") {
      // No body on a GET: the form values go in the query, the odd content types as headers alone.
      requests.push(
        { path: `${path}?${new URLSearchParams(form).toString()}`, options: {} },
        { path: `${path}?${query}`, options: { headers: odd.headers } },
      );
    } else requests.push({ path, options: i % 2 ? { json } : { form } }, { path, options: odd });
  }
  // File parts: junk where the endpoint declares a file, and a file where it declares none.
  const files = Object.keys(e.params).filter((n) => isFileParam(e.params[n] as never));
  if (e.method !== "GET") requests.push({ path: pathOf(e, 2), options: fileParts([...files, names(e)[0]!]) });
  if (files.length) requests.push({ path: pathOf(e, 3), options: fileParts(files) });
  // Keys and arrays in the query: NUL in a name, `a[]` forms, nested brackets, bytes not UTF-8.
  requests.push(
    { path: `${pathOf(e, 0)}?a%00=1&${names(e)[0]}[]=%00&x[y][z]=1`, options: {} },
    { path: `${pathOf(e, 1)}?${names(e)[0]}=%FF%FE&%C0=1`, options: {} },
  );
  return requests;
}

/** Revoking `self` would end the role's session for the rest of the run: those get a fresh token. */
const spendsItsToken = (e: Endpoint) => e.method === "DELETE" && e.path.endsWith("/self");

const ROLES = ["anonymous", "user", "admin"] as const;

test.each(ROLES)(
  "no /api/v4 endpoint answers 5xx to malformed input as %s",
  async (role) => {
    const failures: string[] = [];
    let sent = 0;
    for (const e of API_ENDPOINTS) {
      const requests = requestsFor(e);
      // A few at a time: quick, without crowding a shared machine.
      for (let start = 0; start < requests.length; start += 6) {
        await Promise.all(
          requests.slice(start, start + 6).map(async ({ path, options }) => {
            const who = role === "anonymous" ? undefined : role === "user" ? user : admin;
            const token =
              who && spendsItsToken(e)
                ? (await createToken(stack, who.id, who === admin ? ["api", "sudo"] : ["api"])).token
                : who?.secret;
            const res = await stack.gw.request(e.method, path, { ...options, token });
            sent++;
            if (res.status >= 500)
              failures.push(`${e.method} ${path.slice(0, 120)} -> ${res.status} ${res.text}`);
          }),
        );
      }
    }
    expect(failures).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(API_ENDPOINTS.length * 14);
  },
  120_000,
);

test("the fuzz reaches every declared endpoint", () => {
  // Guards the generator itself: an endpoint list that came out empty would pass the test above.
  expect(API_ENDPOINTS.length).toBeGreaterThanOrEqual(19);
  expect(new Set(API_ENDPOINTS.map((e) => `${e.method} ${e.path}`)).size).toBe(API_ENDPOINTS.length);
});
