/**
 * multipart/form-data bodies: gitbeaker sends some writes this way, and GitLab reads them like forms.
 */
import { createUser, startStack, unique, type Stack } from "./support";

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 30_000);
afterAll(() => stack.stop());

const multipart = (stack: Stack, method: string, path: string, form: FormData) =>
  fetch(stack.gw.base + path, { method, headers: { "PRIVATE-TOKEN": stack.rootToken }, body: form });

test("PUT /users/:id takes its fields from a multipart body", async () => {
  const user = await createUser(stack);
  const form = new FormData();
  form.append("name", "Multi Part Zoë");
  form.append("bio", "from a multipart body");
  const res = await multipart(stack, "PUT", `/api/v4/users/${user.id}`, form);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({
    id: user.id,
    name: "Multi Part Zoë",
    bio: "from a multipart body",
  });
});

test("POST /users from a multipart body creates the user; its missing fields are named", async () => {
  const username = unique("mp_");
  const form = new FormData();
  for (const [k, v] of Object.entries({
    username,
    email: `${username}@example.com`,
    name: "MP",
    password: "long-enough-pw",
  })) {
    form.append(k, v);
  }
  expect((await multipart(stack, "POST", "/api/v4/users", form)).status).toBe(201);
  const incomplete = new FormData();
  incomplete.append("username", unique("mp_"));
  const res = await multipart(stack, "POST", "/api/v4/users", incomplete);
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({
    error:
      "email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing",
  });
});

test("a file part where the endpoint takes no file is refused with 400 and nothing changes", async () => {
  // POST and PUT /users take an avatar file; a custom attribute takes none.
  const user = await createUser(stack);
  const form = new FormData();
  form.append("value", new Blob(["GIF89a"], { type: "image/gif" }), "a.gif");
  const res = await multipart(stack, "PUT", `/api/v4/users/${user.id}/custom_attributes/team`, form);
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: "file uploads are not accepted here" });
  const after = await stack.gw.get(`/api/v4/users/${user.id}/custom_attributes`, { token: stack.rootToken });
  expect(after.body).toEqual([]);
});

test("a malformed multipart body is a 400", async () => {
  const res = await fetch(stack.gw.base + "/api/v4/users", {
    method: "POST",
    headers: { "PRIVATE-TOKEN": stack.rootToken, "Content-Type": "multipart/form-data; boundary=xyz" },
    body: '--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated',
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({ error: "body is not valid multipart/form-data" });
});
