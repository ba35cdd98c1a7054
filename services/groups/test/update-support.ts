/**
 * Helpers of the update, avatar and runners-token tests: members made straight in the schema (the
 * members API is another file's), expected failures, and small real images made here.
 */
import { deflateSync } from "node:zlib";
import { payloadOf } from "@canopy/kit";
import { events, GROUPS_EVENTS } from "@canopy/protos";
import { failed, status, type Harness } from "./support";
import { insertMembership } from "./memberships";

/** A direct membership, as the members API would have written it. */
export const addMember = (h: Harness, groupId: number, userId: number, accessLevel: number) =>
  insertMembership(h.db, { groupId, userId, accessLevel });

/** A 400 in the attribute-keyed shape. */
export const invalidWith = (fieldErrors: Record<string, string[]>) =>
  failed(status.INVALID_ARGUMENT, { fieldErrors });

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (b: Buffer) => {
  let c = 0xffffffff;
  for (const byte of b) c = crcTable[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type: string, data: Buffer) => {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
};

/** A real PNG of `width` x `height` grey pixels; `padding` bytes of an ancillary chunk make it bigger. */
export function png(width = 2, height = 2, padding = 0): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const raw = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) raw[y * (width + 1)] = 0;
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", ihdr),
    ...(padding ? [chunk("tEXt", Buffer.alloc(padding, 0x61))] : []),
    chunk("IDAT", deflateSync(raw)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A 1x1 GIF. */
export const gif = () =>
  Buffer.from("R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==", "base64");

/** Text that claims to be an image by its name only. */
export const svg = () =>
  Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

/** The GroupUpdated events recorded for a group, oldest first. */
export async function updatedEvents(h: Harness, groupId: number) {
  const { rows } = await h.db.query<{ envelope: Buffer }>(
    "SELECT envelope FROM outbox WHERE subject = $1 ORDER BY seq",
    [GROUPS_EVENTS.groupUpdated.subject],
  );
  return rows
    .map(({ envelope }) => payloadOf(events.Event.decode(envelope), GROUPS_EVENTS.groupUpdated)!)
    .filter((p) => p.group?.id === groupId);
}
