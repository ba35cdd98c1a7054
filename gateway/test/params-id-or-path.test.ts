/** GitLab's `:id` (a number or a URL-encoded full path) and int32 parameters; no infrastructure. */
import { HttpError } from "../src/http/errors";
import { param, parseParams } from "../src/http/params";

const parse = (id: unknown) => parseParams({ id: param.idOrPath() }, { id }).id;
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (err) {
    return err instanceof HttpError ? { status: err.status, body: err.body } : err;
  }
  throw new Error("expected a refusal");
};

test.each<[unknown, unknown]>([
  ["42", { id: 42 }],
  [42, { id: 42 }],
  ["group", { path: "group" }],
  ["a/b", { path: "a/b" }], // koa-router decodes `a%2Fb` to this before parsing
  ["a.b/c-d/e_f", { path: "a.b/c-d/e_f" }],
  ["9007199254740991", { id: 9007199254740991 }],
])("%j is %j", (raw, expected) => {
  expect(parse(raw)).toEqual(expected);
});

test.each<[string, unknown]>([
  ["zero", "0"],
  ["a negative number", "-3"],
  ["a number beyond bigint", "99999999999999999999"],
  ["an empty value", ""],
  ["an empty segment", "a//b"],
  ["a leading slash", "/a"],
  ["a NUL byte", "a\u0000b"],
  ["an object", { id: 1 }],
  ["an array", ["1", "2"]],
])("%s is 400 id is invalid", (_what, raw) => {
  expect(refusal(() => parse(raw))).toEqual({ status: 400, body: { error: "id is invalid" } });
});

test("a missing id is 400 id is missing", () => {
  expect(refusal(() => parseParams({ id: param.idOrPath() }, {}))).toEqual({
    status: 400,
    body: { error: "id is missing" },
  });
});

test("int32 takes the int32 range and refuses one beyond it", () => {
  const int32 = (v: string) => parseParams({ page: param.int32() }, { page: v }).page;
  expect(int32("2147483647")).toBe(2147483647);
  expect(int32("-2147483648")).toBe(-2147483648);
  for (const v of ["2147483648", "-2147483649", "4294967296"]) {
    expect(refusal(() => int32(v))).toEqual({ status: 400, body: { error: "page is invalid" } });
  }
});
