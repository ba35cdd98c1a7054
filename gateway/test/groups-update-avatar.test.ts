/** Group avatars over HTTP: multipart uploads on POST and PUT, the avatar URL, GET /groups/:id/avatar. */
import { gif, png, svg } from "../../services/groups/test/update-support";
import { createUser, EXTERNAL_URL, expectError, signedInUser, unique, type Stack } from "./support";
import { Browser, startWebStack } from "./web-support";

let stack: Stack;
let owner: { secret: string; username: string };
beforeAll(async () => {
  stack = await startWebStack();
  const s = await signedInUser(stack);
  owner = { secret: s.secret, username: s.user.username };
});
afterAll(() => stack.stop());

const UNSUPPORTED =
  "file format is not supported. Please try one of the following supported formats: image/png, image/jpeg, image/gif, image/bmp, image/tiff, image/vnd.microsoft.icon";

async function send(
  method: string,
  path: string,
  fields: Record<string, string | [Buffer, string]>,
  token = owner.secret,
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields))
    if (typeof v === "string") form.append(k, v);
    else form.append(k, new Blob([v[0]]), v[1]);
  const res = await fetch(stack.gw.base + path, { method, headers: { "PRIVATE-TOKEN": token }, body: form });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

const pathOfUrl = (url: string) => url.slice(EXTERNAL_URL.length);

it("uploads on PUT, serves it at avatar_url to those who may read the group, and removes it with avatar=", async () => {
  const path = unique("av_");
  const created = await send("POST", "/api/v4/groups", { name: path, path, visibility: "private" });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  const image = png();
  const res = await send("PUT", `/api/v4/groups/${id}`, {
    avatar: [image, "face.png"],
    description: "with face",
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    description: "with face",
    avatar_url: `${EXTERNAL_URL}/uploads/-/system/group/avatar/${id}/face.png`,
  });
  const url = pathOfUrl(res.body.avatar_url);

  // Anonymous: the private group's avatar is the same 404 as a missing one.
  expect((await fetch(stack.gw.base + url)).status).toBe(404);
  expect((await fetch(stack.gw.base + `/uploads/-/system/group/avatar/${id}/other.png`)).status).toBe(404);

  // The owner, signed in on the web, gets the bytes with the type decided at upload.
  const browser = new Browser(stack.gw);
  expect((await browser.signIn(owner.username)).status).toBe(302);
  const page = await fetch(stack.gw.base + url, {
    headers: { Cookie: `_canopy_session=${browser.session}`, "X-Forwarded-For": browser.ip },
  });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toBe("image/png");
  expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  expect(page.headers.get("cache-control")).toBe("max-age=0, private, must-revalidate");
  expect(Buffer.from(await page.arrayBuffer()).equals(image)).toBe(true);
  const again = await fetch(stack.gw.base + url, {
    headers: {
      Cookie: `_canopy_session=${browser.session}`,
      "X-Forwarded-For": browser.ip,
      "If-None-Match": page.headers.get("etag")!,
    },
  });
  expect(again.status).toBe(304);

  // The API's download: an attachment.
  const download = await fetch(stack.gw.base + `/api/v4/groups/${id}/avatar`, {
    headers: { "PRIVATE-TOKEN": owner.secret },
  });
  expect(download.status).toBe(200);
  expect(download.headers.get("content-disposition")).toBe('attachment; filename="face.png"');
  expect(Buffer.from(await download.arrayBuffer()).equals(image)).toBe(true);
  expectError(await stack.gw.get(`/api/v4/groups/${id}/avatar`), 404, { message: "404 Group Not Found" });

  const removed = await send("PUT", `/api/v4/groups/${id}`, { avatar: "" });
  expect(removed.status).toBe(200);
  expect(removed.body.avatar_url).toBeNull();
  expectError(await stack.gw.get(`/api/v4/groups/${id}/avatar`, { token: owner.secret }), 404, {
    message: "404 Avatar Not Found",
  });
});

it("serves a public group's avatar to anyone", async () => {
  const path = unique("avp_");
  const created = await send("POST", "/api/v4/groups", {
    name: path,
    path,
    visibility: "public",
    avatar: [gif(), "logo.gif"],
  });
  expect(created.status).toBe(201);
  expect(created.body.avatar_url).toBe(
    `${EXTERNAL_URL}/uploads/-/system/group/avatar/${created.body.id}/logo.gif`,
  );
  const res = await fetch(stack.gw.base + pathOfUrl(created.body.avatar_url));
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("image/gif");
  const listed = await stack.gw.get(`/api/v4/groups/${created.body.id}`);
  expect((listed.body as { avatar_url: string }).avatar_url).toBe(created.body.avatar_url);
});

it("refuses files that are not images by content, or too big, in each endpoint's error shape", async () => {
  const path = unique("avx_");
  const post = await send("POST", "/api/v4/groups", { name: path, path, avatar: [svg(), "x.png"] });
  expect(post.status).toBe(400);
  expect(post.body).toEqual({ message: `Failed to save group {:avatar=>["${UNSUPPORTED}"]}` });
  const created = await send("POST", "/api/v4/groups", { name: path, path });
  const id = created.body.id as number;
  const bad = await send("PUT", `/api/v4/groups/${id}`, {
    avatar: [Buffer.from("MZ not an image"), "a.jpg"],
  });
  expect(bad.status).toBe(400);
  expect(bad.body).toEqual({ message: { avatar: [UNSUPPORTED] } });
  const big = await send("PUT", `/api/v4/groups/${id}`, { avatar: [png(2, 2, 210_000), "big.png"] });
  expect(big.status).toBe(400);
  expect(big.body).toEqual({ message: { avatar: ["is too big (should be at most 200 KB)"] } });
  const huge = await send("PUT", `/api/v4/groups/${id}`, {
    avatar: [Buffer.alloc(2 * 1024 * 1024), "huge.png"],
  });
  expect(huge.status).toBe(413);
  const after = await stack.gw.get(`/api/v4/groups/${id}`, { token: owner.secret });
  expect((after.body as { avatar_url: unknown }).avatar_url).toBeNull();
});

it("refuses a file part in a field that is not a file, and several files for one", async () => {
  const path = unique("avf_");
  const created = await send("POST", "/api/v4/groups", { name: path, path });
  const id = created.body.id as number;
  const wrongField = await send("PUT", `/api/v4/groups/${id}`, { description: [Buffer.from("x"), "d.txt"] });
  expect(wrongField.status).toBe(400);
  expect(wrongField.body).toEqual({ error: "file uploads are not accepted here" });
  const form = new FormData();
  form.append("avatar", new Blob([png()]), "a.png");
  form.append("avatar", new Blob([png()]), "b.png");
  const two = await fetch(stack.gw.base + `/api/v4/groups/${id}`, {
    method: "PUT",
    headers: { "PRIVATE-TOKEN": owner.secret },
    body: form,
  });
  expect(two.status).toBe(400);
  expect(await two.json()).toEqual({ error: "avatar is invalid" });
  // Users' endpoints take a file as `avatar` only (users-avatar-http.test.ts).
  const user = await createUser(stack);
  const userFile = await send("PUT", `/api/v4/users/${user.id}`, { bio: [png(), "a.png"] }, stack.rootToken);
  expect(userFile.body).toEqual({ error: "file uploads are not accepted here" });
});

it('answers python-gitlab 3.12\'s `avatar = ""` (an empty file part "avatar.png") as GitLab does: 400, avatar kept', async () => {
  // python-gitlab before 5.x sends an ImageAttribute's "" as a file (utils._transform_types); GitLab
  // checks the empty file like any other (python-gitlab issues #2805, #2933). Only a plain empty
  // field, `avatar=`, removes the avatar.
  const path = unique("ave_");
  const created = await send("POST", "/api/v4/groups", { name: path, path, avatar: [gif(), "logo.gif"] });
  const id = created.body.id as number;
  const empty = await send("PUT", `/api/v4/groups/${id}`, { avatar: [Buffer.alloc(0), "avatar.png"] });
  expect(empty.status).toBe(400);
  expect(empty.body).toEqual({ message: { avatar: [UNSUPPORTED] } });
  const kept = await stack.gw.get(`/api/v4/groups/${id}`, { token: owner.secret });
  expect((kept.body as { avatar_url: unknown }).avatar_url).toBe(created.body.avatar_url);
  const removed = await send("PUT", `/api/v4/groups/${id}`, { avatar: "" });
  expect(removed.status).toBe(200);
  expect(removed.body.avatar_url).toBeNull();
});
