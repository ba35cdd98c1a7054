/**
 * GitLab's emoji pipeline (Banzai::Pipeline::EmojiPipeline), which renders a status' `message_html`:
 * the text escaped, then its emoji turned into <gl-emoji> elements, with no <p> around it.
 *
 * GitLab escapes the text, parses it as HTML and runs its EmojiFilter over the text, which
 * 1. replaces each unicode emoji it knows by a <gl-emoji> (the longest sequence first; ™ © ® alone
 *    stay text, and so does a sequence its matcher takes whole but cannot name: an emoji with the
 *    text presentation selector U+FE0E, a ZWJ chain of emoji that is no emoji itself);
 * 2. then replaces each `:name:` code of a known name, when neither the character before the first
 *    colon nor the one after the last is a letter, mark, digit or colon (":a::b:" stays text; an
 *    element from step 1 next to a code counts as neither).
 * The HTML comes out of Nokogiri, which escapes only & < > in text (quotes stay) and & < > " in
 * attributes. Lookup maps are built once when the emoji index loads; a render is one pass.
 * Step 1 looks up known sequences (as GitLab's matcher did before it took the unicode-emoji gem's
 * pattern); that pattern's wider net is followed for U+FE0E and ZWJ chains only, so an exotic
 * sequence (an unknown tag flag, say) may differ.
 */
import { emojiAt, findEmojiByName, type GitlabEmoji } from "@canopy/kit/gitlab/emoji";

const ZWJ = "\u200D";
const VS15 = "\uFE0E";
/** Banzai::Filter::EmojiFilter::IGNORE_UNICODE_EMOJIS: these three alone stay text. */
const IGNORED = new Set(["™", "©", "®"]);
/** Ruby's [[:alnum:]] (letter, mark, decimal digit) or a colon: what may not touch a `:name:` code. */
const CODE_NEIGHBOUR = /[\p{L}\p{M}\p{Nd}:]/u;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const escapeText = (s: string) => s.replace(/[&<>]/g, (c) => ESCAPES[c]!);
const escapeAttribute = (s: string) => s.replace(/[&<>"]/g, (c) => ESCAPES[c]!);

/** Gitlab::Emoji.gl_emoji_tag: the attributes in GitLab's order. */
const glEmojiTag = (e: GitlabEmoji) =>
  `<gl-emoji title="${escapeAttribute(e.description)}" data-name="${escapeAttribute(e.name)}" ` +
  `data-unicode-version="${escapeAttribute(e.unicodeVersion)}">${e.codepoints}</gl-emoji>`;

type Piece = string | GitlabEmoji;

/** Step 1: the text cut into runs of text and the unicode emoji between them. */
function unicodeEmoji(text: string): Piece[] {
  const pieces: Piece[] = [];
  let run = "";
  let i = 0;
  while (i < text.length) {
    const found = emojiAt(text, i);
    if (!found) {
      const next = i + (text.codePointAt(i)! > 0xffff ? 2 : 1);
      run += text.slice(i, next);
      i = next;
      continue;
    }
    // GitLab's matcher takes a text-presentation emoji or a ZWJ chain of emoji whole, then names none.
    let end = found.end;
    let unnamed = false;
    if (text[end] === VS15) [end, unnamed] = [end + 1, true];
    let link;
    while (text[end] === ZWJ && (link = emojiAt(text, end + 1))) [end, unnamed] = [link.end, true];
    const matched = text.slice(i, end);
    if (unnamed || IGNORED.has(matched)) run += matched;
    else {
      if (run) pieces.push(run);
      pieces.push(found.emoji);
      run = "";
    }
    i = end;
  }
  if (run) pieces.push(run);
  return pieces;
}

const codePointBefore = (s: string, index: number) => {
  const low = s.charCodeAt(index - 1);
  return low >= 0xdc00 && low <= 0xdfff && index >= 2 ? s.codePointAt(index - 2)! : low;
};
/** Whether a code point keeps a `:name:` code beside it from being one; NaN is the run's edge. */
const blocksCode = (codePoint: number | undefined) =>
  codePoint !== undefined && !Number.isNaN(codePoint) && CODE_NEIGHBOUR.test(String.fromCodePoint(codePoint));

/** Step 2: a run of text escaped, its `:name:` codes as elements. */
function namedEmoji(run: string): string {
  let html = "";
  let done = 0;
  let open = run.indexOf(":");
  while (open >= 0) {
    const close = run.indexOf(":", open + 1);
    if (close < 0) break;
    const emoji = findEmojiByName(run.slice(open + 1, close));
    if (emoji && !blocksCode(codePointBefore(run, open)) && !blocksCode(run.codePointAt(close + 1))) {
      html += escapeText(run.slice(done, open)) + glEmojiTag(emoji);
      done = close + 1;
      open = run.indexOf(":", done);
    } else open = close;
  }
  return html + escapeText(run.slice(done));
}

/** A status message as GitLab's `message_html`. */
export function emojiPipelineHtml(text: string): string {
  return unicodeEmoji(text)
    .map((piece) => (typeof piece === "string" ? namedEmoji(piece) : glEmojiTag(piece)))
    .join("");
}
