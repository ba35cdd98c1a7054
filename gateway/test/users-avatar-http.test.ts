/**
 * Users' avatars over HTTP: multipart `avatar` on POST and PUT /users, PUT /user/avatar, the avatar
 * URL (/uploads/-/system/user/avatar/:id/:filename), avatar_url in every entity and in member lists.
 */
import { gif, png, svg } from "../../services/groups/test/update-support";
import {
  createUser,
  EXTERNAL_URL,
  FORBIDDEN,
  signedInUser,
  UNAUTHORIZED,
  unique,
  userRow,
  type Stack,
} from "./support";
import { startWebStack } from "./web-support";

let stack: Stack;
beforeAll(async () => {
  stack = await startWebStack();
}, 30_000);
afterAll(() => stack.stop());

const UNSUPPORTED =
  "file format is not supported. Please try one of the following supported formats: image/png, image/jpeg, image/gif, image/bmp, image/tiff, image/vnd.microsoft.icon";
const TOO_BIG = "is too big (should be at most 200 KB)";

/** A multipart request; `[bytes, name]` values are file parts. */
async function send(
  method: string,
  path: string,
  fields: Record<string, string | [Buffer, string]>,
  token = stack.rootToken,
) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields))
    if (typeof v === "string") form.append(k, v);
    else form.append(k, new Blob([v[0]]), v[1]);
  const res = await fetch(stack.gw.base + path, {
    method,
    headers: token ? { "PRIVATE-TOKEN": token } : {},
    body: form,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

const avatarUrlOf = (id: number, filename: string) =>
  `${EXTERNAL_URL}/uploads/-/system/user/avatar/${id}/${filename}`;
const fetchPath = (url: string) => fetch(stack.gw.base + url.slice(EXTERNAL_URL.length));

const newUserFields = () => {
  const username = unique("av_");
  return {
    username,
    email: `${username}@example.com`,
    name: `Avatar ${username}`,
    password: "Pa55word-long!",
  };
};

describe("POST and PUT /users with an avatar", () => {
  it("creates a user with an avatar, shown as an absolute avatar_url and served publicly", async () => {
    const image = png();
    const res = await send("POST", "/api/v4/users", { ...newUserFields(), avatar: [image, "my face.png"] });
    expect(res.status).toBe(201);
    const id = res.body.id as number;
    // CarrierWave's sanitising: the space becomes '_'.
    expect(res.body.avatar_url).toBe(avatarUrlOf(id, "my_face.png"));

    const file = await fetchPath(res.body.avatar_url);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(file.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await file.arrayBuffer()).equals(image)).toBe(true);
    // Another name, another user, a malformed id: the same 404.
    expect((await fetch(`${stack.gw.base}/uploads/-/system/user/avatar/${id}/other.png`)).status).toBe(404);
    expect((await fetch(`${stack.gw.base}/uploads/-/system/user/avatar/999999999/my_face.png`)).status).toBe(
      404,
    );
    expect((await fetch(`${stack.gw.base}/uploads/-/system/user/avatar/0x1/my_face.png`)).status).toBe(404);

    // Every entity shows it: the list (others' UserBasic), the profile, the owner's GET /user.
    const other = await signedInUser(stack);
    const shown = await stack.gw.get(`/api/v4/users/${id}`, { token: other.secret });
    expect(shown.body).toMatchObject({ id, avatar_url: avatarUrlOf(id, "my_face.png") });
    const list = await stack.gw.get(`/api/v4/users?username=${res.body.username}`, { token: other.secret });
    expect(list.body).toEqual([expect.objectContaining({ id, avatar_url: avatarUrlOf(id, "my_face.png") })]);
  });

  it("replaces the avatar on PUT; the old URL stops answering", async () => {
    const u = await createUser(stack);
    expect(u.avatar_url).toBeNull();
    const first = await send("PUT", `/api/v4/users/${u.id}`, { avatar: [png(), "a.png"] });
    expect(first.status).toBe(200);
    expect(first.body.avatar_url).toBe(avatarUrlOf(u.id, "a.png"));
    const second = await send("PUT", `/api/v4/users/${u.id}`, { avatar: [gif(), "b.gif"], bio: "new" });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ bio: "new", avatar_url: avatarUrlOf(u.id, "b.gif") });
    expect((await fetchPath(first.body.avatar_url)).status).toBe(404);
    const file = await fetchPath(second.body.avatar_url);
    expect(file.headers.get("content-type")).toBe("image/gif");
  });

  it("refuses a non-image, a file that only claims to be one, and a too big one, changing nothing", async () => {
    const u = await createUser(stack);
    const cases: [Buffer, string, string[]][] = [
      [Buffer.from("plain text"), "notes.txt", [UNSUPPORTED]],
      [svg(), "face.png", [UNSUPPORTED]],
      [png(2, 2, 210 * 1024), "big.png", [TOO_BIG]],
      [Buffer.concat([svg(), Buffer.alloc(210 * 1024, 0x20)]), "big.svg", [UNSUPPORTED, TOO_BIG]],
    ];
    for (const [bytes, name, messages] of cases) {
      const res = await send("PUT", `/api/v4/users/${u.id}`, { avatar: [bytes, name], bio: "changed" });
      expect({ name, status: res.status, body: res.body }).toEqual({
        name,
        status: 400,
        body: { message: { avatar: messages } },
      });
    }
    expect(await userRow(stack, u.id)).toMatchObject({ bio: "", avatar_filename: null });

    // On create, the user is not made at all.
    const fields = newUserFields();
    const refused = await send("POST", "/api/v4/users", { ...fields, avatar: [svg(), "x.png"] });
    expect(refused).toEqual({ status: 400, body: { message: { avatar: [UNSUPPORTED] } } });
    const { rowCount } = await stack.db.query("SELECT 1 FROM auth.users WHERE username = $1", [
      fields.username,
    ]);
    expect(rowCount).toBe(0);
  });

  it("refuses an empty avatar (GitLab's file type does not take text) and avatar as text in JSON", async () => {
    const u = await createUser(stack);
    expect(await send("PUT", `/api/v4/users/${u.id}`, { avatar: "" })).toEqual({
      status: 400,
      body: { error: "avatar is invalid" },
    });
    const json = await stack.gw.put(`/api/v4/users/${u.id}`, {
      token: stack.rootToken,
      json: { avatar: "not a file" },
    });
    expect(json.status).toBe(400);
    expect(json.body).toEqual({ error: "avatar is invalid" });
  });

  it("lets only administrators set another user's avatar", async () => {
    const u = await createUser(stack);
    const other = await signedInUser(stack);
    expect(await send("PUT", `/api/v4/users/${u.id}`, { avatar: [png(), "a.png"] }, other.secret)).toEqual({
      status: 403,
      body: FORBIDDEN,
    });
    expect(await send("PUT", `/api/v4/users/${u.id}`, { avatar: [png(), "a.png"] }, "")).toEqual({
      status: 401,
      body: UNAUTHORIZED,
    });
    expect(await userRow(stack, u.id)).toMatchObject({ avatar_filename: null });
  });
});

describe("PUT /user/avatar", () => {
  it("sets the current user's avatar: 200 {avatar_url}, then GET /user shows it", async () => {
    const me = await signedInUser(stack);
    const res = await send("PUT", "/api/v4/user/avatar", { avatar: [png(), "me.png"] }, me.secret);
    expect(res).toEqual({ status: 200, body: { avatar_url: avatarUrlOf(me.user.id, "me.png") } });
    const self = await stack.gw.get("/api/v4/user", { token: me.secret });
    expect((self.body as { avatar_url: string }).avatar_url).toBe(avatarUrlOf(me.user.id, "me.png"));
  });

  it("answers a bad file with Users::UpdateService's message, and a missing one with Grape's", async () => {
    const me = await signedInUser(stack);
    expect(await send("PUT", "/api/v4/user/avatar", { avatar: [svg(), "x.png"] }, me.secret)).toEqual({
      status: 400,
      body: { message: `Avatar ${UNSUPPORTED}` },
    });
    expect(
      await send("PUT", "/api/v4/user/avatar", { avatar: [png(2, 2, 210 * 1024), "x.png"] }, me.secret),
    ).toEqual({
      status: 400,
      body: { message: `Avatar ${TOO_BIG}` },
    });
    expect(await send("PUT", "/api/v4/user/avatar", { other: "x" }, me.secret)).toEqual({
      status: 400,
      body: { error: "avatar is missing" },
    });
    expect(await userRow(stack, me.user.id)).toMatchObject({ avatar_filename: null });
  });

  it("needs a signed-in caller and a token that may write", async () => {
    expect(await send("PUT", "/api/v4/user/avatar", { avatar: [png(), "me.png"] }, "")).toEqual({
      status: 401,
      body: UNAUTHORIZED,
    });
    const reader = await signedInUser(stack, ["read_user"]);
    const res = await send("PUT", "/api/v4/user/avatar", { avatar: [png(), "me.png"] }, reader.secret);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: "insufficient_scope" });
  });
});

it("carries the avatar to member lists through the user events", async () => {
  const owner = await signedInUser(stack);
  const path = unique("avg_");
  const group = await stack.gw.post("/api/v4/groups", { token: owner.secret, json: { name: path, path } });
  expect(group.status).toBe(201);
  const member = await createUser(stack);
  const added = await stack.gw.post(`/api/v4/groups/${(group.body as { id: number }).id}/members`, {
    token: owner.secret,
    json: { user_id: member.id, access_level: 30 },
  });
  expect(added.status).toBe(201);
  await send("PUT", `/api/v4/users/${member.id}`, { avatar: [png(), "m.png"] });
  // Absolute on the auth service's CANOPY_EXTERNAL_URL (its default in this stack).
  const expected = `${stack.authService.config.CANOPY_EXTERNAL_URL}/uploads/-/system/user/avatar/${member.id}/m.png`;
  for (let i = 0; i < 100; i++) {
    const list = await stack.gw.get(
      `/api/v4/groups/${(group.body as { id: number }).id}/members/${member.id}`,
      {
        token: owner.secret,
      },
    );
    if ((list.body as { avatar_url: string }).avatar_url === expected) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the member's avatar_url never showed the new avatar");
});
