/**
 * GitLab's emoji index: the emoji its status validator accepts by name and its emoji filter turns into
 * <gl-emoji> elements (the TanukiEmoji gem). Imported as `@canopy/kit/gitlab/emoji`, apart from the
 * kit's index, so that only the processes that use it (auth, gateway) load its data.
 *
 * TanukiEmoji builds its index from Unicode's emoji-test.txt and then gemojione 3.3's shortnames;
 * this one rebuilds it from emojibase-data (MIT, JSON only, so nothing ES-module-only at run time),
 * whose labels are emoji-test.txt's descriptions and whose JoyPixels shortcodes are the heirs of
 * gemojione's. Each emoji has:
 * - `name` (data-name): the gemojione shortname for the emoji gemojione knew (up to Emoji 5.0),
 *   taken here as JoyPixels' first shortcode; for later emoji the name TanukiEmoji derives from the
 *   description ("smiling face with hearts" -> smiling_face_with_hearts).
 * - `description` (title): the emoji-test.txt description.
 * - `codepoints`: the fully-qualified sequence, the form emoji-test.txt lists first.
 * - `unicodeVersion` (data-unicode-version): what TanukiEmoji answers, the emoji version mapped to the
 *   Unicode version it came with for Emoji 0.6 to 5.0 (E0.6 -> 6.0, E1.0 -> 8.0, E5.0 -> 10.0) and
 *   the emoji version itself after (E13.1 -> 13.1). Not the character's own Unicode version: ☕ is
 *   "6.0" in GitLab (and here) though U+2615 dates from Unicode 4.0.
 * Known differences from GitLab, all at the edges: a data-name is JoyPixels' where JoyPixels renamed
 * a gemojione shortname; the aliases are JoyPixels' and GitHub's (gemoji's, the names Canopy accepted
 * before) where GitLab has gemojione's and its own few, so a few more codes and status emoji are
 * accepted; emojibase follows the newest Emoji version, which can be ahead of GitLab's gem.
 */
import emojibase from "emojibase-data/en/data.json";
import github from "emojibase-data/en/shortcodes/github.json";
import joypixels from "emojibase-data/en/shortcodes/joypixels.json";

/** One emoji as GitLab's <gl-emoji> element shows it. */
export interface GitlabEmoji {
  readonly name: string;
  readonly description: string;
  readonly codepoints: string;
  readonly unicodeVersion: string;
}

type Source = (typeof emojibase)[number];

/** TanukiEmoji's EMOJI_UNICODE_VERSION (unicode.org/reports/tr51/#Versioning); later ones map to themselves. */
const UNICODE_VERSION_OF_EMOJI_VERSION: Readonly<Record<string, string>> = {
  "0.6": "6.0",
  "0.7": "7.0",
  "1.0": "8.0",
  "2.0": "8.0",
  "3.0": "9.0",
  "4.0": "9.0",
  "5.0": "10.0",
};
/** The last emoji version gemojione 3.3 (and so GitLab's names) covers. */
const GEMOJIONE_LAST_EMOJI_VERSION = 5;
/** emojibase's group of components (skin tones, hair): emoji-test.txt lists them, matchers skip them alone. */
const COMPONENT_GROUP = 2;
const VS16 = "\uFE0F";

const list = (codes: string | string[] | undefined): string[] =>
  codes === undefined ? [] : Array.isArray(codes) ? codes : [codes];

/** TanukiEmoji's alpha code for an emoji-test.txt description: transliterated, snake_case, keycaps spelled. */
export function descriptionAlphaCode(description: string): string {
  const code = description
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .replace(/[^a-zA-Z#*\d]+/g, "_")
    .toLowerCase()
    .replace(/_$/, "");
  return code === "keycap_*" ? "keycap_asterisk" : code === "keycap_#" ? "keycap_hash" : code;
}

const fromHexcode = (hexcode: string) =>
  String.fromCodePoint(...hexcode.split("-").map((h) => parseInt(h, 16)));

/** emojibase leaves the presentation selector off single code points; emoji-test.txt's first form has it on text-default ones. */
function fullyQualified(e: Source): string {
  const chars = fromHexcode(e.hexcode);
  return !e.hexcode.includes("-") && e.type === 0 ? chars + VS16 : chars;
}

/**
 * Every form of a sequence GitLab recognises: emoji-test.txt lists the fully-qualified one and each
 * with some of its U+FE0F left out; a single code point also counts with the selector added.
 */
function forms(codepoints: string): string[] {
  const parts = codepoints.split(VS16);
  let variants = [parts[0]!];
  for (const part of parts.slice(1)) variants = variants.flatMap((v) => [v + VS16 + part, v + part]);
  return [...codepoints].length === 1 ? [...variants, codepoints + VS16] : variants;
}

const unicodeVersion = (emojiVersion: number) => {
  const version = emojiVersion.toFixed(1);
  return UNICODE_VERSION_OF_EMOJI_VERSION[version] ?? version;
};

// Regional indicator letters alone are not emoji in emoji-test.txt (emojibase lists them with no group).
const sources: Source[] = emojibase
  .flatMap((e) => [e, ...(e.skins ?? [])])
  .filter((e) => e.group !== undefined);

const gemojioneName = (e: Source) =>
  e.version <= GEMOJIONE_LAST_EMOJI_VERSION ? list(joypixels[e.hexcode])[0] : undefined;

const entries = sources.map((source) => {
  const description = source.label;
  const emoji: GitlabEmoji = {
    name: gemojioneName(source) ?? descriptionAlphaCode(description),
    description,
    codepoints: fullyQualified(source),
    unicodeVersion: unicodeVersion(source.version),
  };
  return { source, emoji };
});

/**
 * Names, most binding first: gemojione's names win over descriptions (:cow: is 🐮, not 🐄, as in
 * TanukiEmoji), then every emoji's own name, its description's alpha code, its other JoyPixels
 * shortcodes and its GitHub ones.
 */
const BY_NAME = new Map<string, GitlabEmoji>();
const nameAll = (names: (e: (typeof entries)[number]) => string[]) => {
  for (const entry of entries) for (const n of names(entry)) if (!BY_NAME.has(n)) BY_NAME.set(n, entry.emoji);
};
nameAll(({ source }) => list(gemojioneName(source)));
nameAll(({ emoji }) => [emoji.name]);
nameAll(({ emoji }) => [descriptionAlphaCode(emoji.description)]);
nameAll(({ source }) => list(joypixels[source.hexcode]));
nameAll(({ source }) => list(github[source.hexcode]));

/** Sequences GitLab turns into <gl-emoji> when they appear in text. */
const BY_SEQUENCE = new Map<string, GitlabEmoji>();
for (const { source, emoji } of entries) {
  if (source.group === COMPONENT_GROUP) continue;
  for (const form of forms(emoji.codepoints)) if (!BY_SEQUENCE.has(form)) BY_SEQUENCE.set(form, emoji);
}
/** By first code point, the lengths of the sequences starting with it, longest first: the few to try. */
const LENGTHS_BY_FIRST = new Map<number, number[]>();
for (const sequence of BY_SEQUENCE.keys()) {
  const first = sequence.codePointAt(0)!;
  const lengths = LENGTHS_BY_FIRST.get(first) ?? [];
  if (!lengths.includes(sequence.length)) lengths.push(sequence.length);
  LENGTHS_BY_FIRST.set(first, lengths);
}
for (const lengths of LENGTHS_BY_FIRST.values()) lengths.sort((a, b) => b - a);

/** The emoji an alpha code (without colons) names, as GitLab's TanukiEmoji.find_by_alpha_code. */
export const findEmojiByName = (name: string): GitlabEmoji | undefined => BY_NAME.get(name);

/** Whether GitLab knows the emoji name (its EmojiNameValidator for a status' emoji). */
export const isEmojiName = (name: string): boolean => BY_NAME.has(name);

/** The longest emoji sequence starting at `index` of `text`, with the index just after it. */
export function emojiAt(text: string, index: number): { emoji: GitlabEmoji; end: number } | undefined {
  for (const length of LENGTHS_BY_FIRST.get(text.codePointAt(index)!) ?? []) {
    const emoji =
      index + length <= text.length ? BY_SEQUENCE.get(text.slice(index, index + length)) : undefined;
    if (emoji) return { emoji, end: index + length };
  }
  return undefined;
}
