/** Avatars through CreateGroup/UpdateGroup and GroupAvatarsService: checked by content, at most 200 KiB. */
import { groupAvatars } from "@canopy/protos";
import { filledClient } from "@canopy/kit/testing";
import { failed, failure, startHarness, status, type Harness, type TestUser } from "./support";
import { gif, invalidWith, png, svg, updatedEvents } from "./update-support";

let h: Harness;
let owner: TestUser;
let avatars: ReturnType<typeof avatarsRpc>;
const avatarsRpc = (hh: Harness) =>
  filledClient(hh.groupsService.client(groupAvatars.GroupAvatarsServiceService), {
    getAvatar: groupAvatars.GetAvatarRequest,
  });
beforeAll(async () => {
  h = await startHarness();
  owner = await h.newUser();
  avatars = avatarsRpc(h);
});
afterAll(() => h.stop());

const UNSUPPORTED =
  "file format is not supported. Please try one of the following supported formats: image/png, image/jpeg, image/gif, image/bmp, image/tiff, image/vnd.microsoft.icon";
const TOO_BIG = "is too big (should be at most 200 KB)";
const upload = (id: number, filename: string, content: Buffer, actor = owner.actor) =>
  h.rpc.updateGroup({ actor, group: { id }, avatar: { filename, content, remove: false } });

it("keeps an uploaded PNG, names it in avatar_path and serves it with the type its bytes say", async () => {
  const g = await h.newGroup(owner);
  const image = png();
  const d = await upload(g.id, "my face (1).png", image);
  expect(d.group!.avatarPath).toBe(`/uploads/-/system/group/avatar/${g.id}/my_face__1_.png`);
  const a = await avatars.getAvatar({ actor: owner.actor, group: { id: g.id }, filename: "my_face__1_.png" });
  expect(a).toMatchObject({ filename: "my_face__1_.png", contentType: "image/png" });
  expect(Buffer.from(a.content).equals(image)).toBe(true);
  const [event] = await updatedEvents(h, g.id);
  expect(event!.changed).toEqual(["avatar"]);
});

it("takes the type from the content, not the name: a GIF called .png is served as a GIF", async () => {
  const g = await h.newGroup(owner);
  await upload(g.id, "a.png", gif());
  expect((await avatars.getAvatar({ actor: owner.actor, group: { id: g.id } })).contentType).toBe(
    "image/gif",
  );
});

it("refuses an SVG, text and a truncated file as unsupported, and more than 200 KiB as too big, changing nothing", async () => {
  const g = await h.newGroup(owner);
  await upload(g.id, "ok.png", png());
  for (const content of [svg(), Buffer.from("just text"), png().subarray(0, 10)])
    expect(await failure(upload(g.id, "x.png", content))).toEqual(invalidWith({ avatar: [UNSUPPORTED] }));
  const big = png(2, 2, 200 * 1024);
  expect(await failure(upload(g.id, "big.png", big))).toEqual(invalidWith({ avatar: [TOO_BIG] }));
  expect(await failure(upload(g.id, "big.svg", Buffer.concat([svg(), Buffer.alloc(210_000, 32)])))).toEqual(
    invalidWith({ avatar: [UNSUPPORTED, TOO_BIG] }),
  );
  // Exactly 200 KiB is allowed.
  const edge = png(2, 2, 200 * 1024 - png().length - 12);
  expect(edge.length).toBe(200 * 1024);
  expect((await upload(g.id, "edge.png", edge)).group!.avatarPath).toMatch(/\/edge\.png$/);
});

it("is removed by an empty avatar; the URL then answers 404 Avatar", async () => {
  const g = await h.newGroup(owner);
  await upload(g.id, "a.png", png());
  const d = await h.rpc.updateGroup({
    actor: owner.actor,
    group: { id: g.id },
    avatar: { filename: "", content: Buffer.alloc(0), remove: true },
  });
  expect(d.group!.avatarPath).toBe("");
  expect(await failure(avatars.getAvatar({ actor: owner.actor, group: { id: g.id } }))).toEqual(
    failed(status.NOT_FOUND, { resource: "Avatar" }),
  );
});

it("is served only to callers who may read the group, and only under its current name", async () => {
  const g = await h.newGroup(owner);
  await upload(g.id, "a.png", png());
  const stranger = await h.newUser();
  expect(await failure(avatars.getAvatar({ actor: stranger.actor, group: { id: g.id } }))).toEqual(
    failed(status.NOT_FOUND, { resource: "Group" }),
  );
  expect(
    await failure(avatars.getAvatar({ actor: owner.actor, group: { id: g.id }, filename: "b.png" })),
  ).toEqual(failed(status.NOT_FOUND, { resource: "Avatar" }));
  const pub = await h.newGroup(owner, { visibility: "public" });
  await upload(pub.id, "p.png", png());
  expect((await avatars.getAvatar({ group: { id: pub.id }, filename: "p.png" })).filename).toBe("p.png");
});

it("comes with a creation too, whose refusal is GitLab's 'Failed to save group' string", async () => {
  const path = `av-${Date.now()}`;
  const d = await h.rpc.createGroup({
    actor: owner.actor,
    attributes: { name: path, path },
    avatar: { filename: "logo.gif", content: gif(), remove: false },
  });
  expect(d.group!.avatarPath).toBe(`/uploads/-/system/group/avatar/${d.group!.id}/logo.gif`);
  expect(
    await failure(
      h.rpc.createGroup({
        actor: owner.actor,
        attributes: { name: "x", path: `${path}-bad` },
        avatar: { filename: "x.svg", content: svg(), remove: false },
      }),
    ),
  ).toEqual(
    failed(status.INVALID_ARGUMENT, {
      httpStatus: 400,
      publicMessage: `Failed to save group {:avatar=>["${UNSUPPORTED}"]}`,
    }),
  );
});
