/**
 * A status' message_html: GitLab's emoji pipeline (escape, unicode emoji, then `:name:` codes). The
 * expected strings are those of GitLab's own specs (emoji_pipeline_spec, emoji_filter_spec, the
 * profile and group serializer specs) where they have one.
 */
import fc from "fast-check";
import { emojiPipelineHtml as html } from "../../src/entities/emoji-pipeline";

const COFFEE = '<gl-emoji title="hot beverage" data-name="coffee" data-unicode-version="6.0">☕</gl-emoji>';
const SMILE =
  '<gl-emoji title="grinning face with smiling eyes" data-name="smile" data-unicode-version="6.0">😄</gl-emoji>';
const THUMBSUP = '<gl-emoji title="thumbs up" data-name="thumbsup" data-unicode-version="6.0">👍</gl-emoji>';
const count = (text: string) => html(text).split("<gl-emoji ").length - 1;

describe("emojiPipelineHtml: codes", () => {
  it("turns known :name: codes into <gl-emoji> elements, with no <p> around", () => {
    // GitLab's API documentation shows this message, with the version 4.0 of its older emoji gem.
    expect(html("I crave coffee :coffee:")).toBe(`I crave coffee ${COFFEE}`);
    expect(html(":smile:")).toBe(SMILE);
    expect(html(":book: Book")).toBe(
      '<gl-emoji title="open book" data-name="book" data-unicode-version="6.0">📖</gl-emoji> Book',
    );
    expect(html("Hello <b>world</b> :100:")).toBe(
      'Hello &lt;b&gt;world&lt;/b&gt; <gl-emoji title="hundred points" data-name="100" data-unicode-version="6.0">💯</gl-emoji>',
    );
  });

  it("names the emoji by its main name whichever alias the code used", () => {
    expect(html(":+1:")).toBe(THUMBSUP);
    expect(html(":thumbs_up:")).toBe(THUMBSUP);
    expect(html(":-1:")).toBe(
      '<gl-emoji title="thumbs down" data-name="thumbsdown" data-unicode-version="6.0">👎</gl-emoji>',
    );
    expect(html(":small_airplane:")).toContain('data-name="airplane_small" data-unicode-version="7.0">🛩️<');
  });

  it("converts codes at the start, at the end and between punctuation", () => {
    expect(html(":+1: ok")).toBe(`${THUMBSUP} ok`);
    expect(html("This gets a :-1:")).toMatch(/^This gets a <gl-emoji [^>]+>👎<\/gl-emoji>$/);
    expect(html("(:smile:), [:smile:]\n:smile:.")).toBe(`(${SMILE}), [${SMILE}]\n${SMILE}.`);
    expect(html("fine: :smile:")).toBe(`fine: ${SMILE}`);
  });

  it("leaves unknown codes, other cases and unclosed codes as text", () => {
    for (const text of [
      ":not_an_emoji:",
      ":Smile:",
      ":SMILE:",
      ":smile",
      "smile:",
      "::",
      ": smile :",
      ":sm ile:",
    ])
      expect(html(text)).toBe(text);
  });

  it("converts no code touching a letter, a digit or another code, as GitLab's pattern", () => {
    for (const text of [
      "x:smile:",
      ":smile:x",
      "é:smile:",
      ":smile:é",
      "1:smile:",
      ":smile:2",
      "ab:smile:cd",
    ])
      expect(html(text)).toBe(text);
    expect(count(":see_no_evil::hear_no_evil::speak_no_evil:")).toBe(0);
    expect(html(":smile::smile:")).toBe(":smile::smile:");
    expect(html(":smile: :smile:")).toBe(`${SMILE} ${SMILE}`);
    expect(html(":a::smile: :smile:")).toBe(`:a::smile: ${SMILE}`);
  });

  it("converts a code next to a unicode emoji (an element then, on GitLab's HTML)", () => {
    expect(html("☕:smile:☕")).toBe(`${COFFEE}${SMILE}${COFFEE}`);
    expect(count("'🙈:see_no_evil:🙉:hear_no_evil:🙊:speak_no_evil:'")).toBe(6);
  });
});

describe("emojiPipelineHtml: unicode emoji", () => {
  it("wraps unicode emoji, keeping the text around them intact", () => {
    expect(html("☕")).toBe(COFFEE);
    expect(html("This deserves a 🎱, big time.")).toBe(
      'This deserves a <gl-emoji title="pool 8 ball" data-name="8ball" data-unicode-version="6.0">🎱</gl-emoji>, big time.',
    );
    expect(count("+1 (👍)")).toBe(1);
    expect(count("'🙈🙉🙊'")).toBe(3);
  });

  it("takes a sequence whole and writes its fully-qualified form", () => {
    expect(html("👍🏽")).toBe(
      '<gl-emoji title="thumbs up: medium skin tone" data-name="thumbsup_tone3" data-unicode-version="8.0">👍🏽</gl-emoji>',
    );
    expect(html("👨‍💻")).toBe(
      '<gl-emoji title="man technologist" data-name="man_technologist" data-unicode-version="9.0">👨‍💻</gl-emoji>',
    );
    expect(html("\u2764")).toBe(
      '<gl-emoji title="red heart" data-name="heart" data-unicode-version="6.0">\u2764\uFE0F</gl-emoji>',
    );
    expect(html("\u{1F3F3}\u200D\u{1F308}")).toContain(
      'data-name="rainbow_flag" data-unicode-version="9.0">🏳️‍🌈<',
    );
  });

  it("leaves ™ © ® alone as text but converts them with the emoji selector or by name", () => {
    expect(html("™ © ®")).toBe("™ © ®");
    expect(html("™\uFE0F")).toBe(
      '<gl-emoji title="trade mark" data-name="tm" data-unicode-version="6.0">™️</gl-emoji>',
    );
    expect(html(":tm: :copyright: :registered:")).toMatch(
      /^<gl-emoji [^>]+>™️<\/gl-emoji> <gl-emoji [^>]+>©️<\/gl-emoji> <gl-emoji [^>]+>®️<\/gl-emoji>$/,
    );
  });

  it("leaves text-presentation emoji, ZWJ chains that are no emoji and lone skin tones as text", () => {
    for (const text of ["\u2615\uFE0E", "🤠\u200D🤢", "🏻", "🇺", "1 # *", "😀\uFE0E:smile:"])
      expect(html(text)).toBe(text);
    expect(html("😀🏻")).toMatch(/^<gl-emoji [^>]+data-name="grinning"[^>]+>😀<\/gl-emoji>🏻$/);
  });
});

describe("emojiPipelineHtml: escaping", () => {
  it("escapes & < > in the text and leaves quotes, as Nokogiri writes a text node", () => {
    expect(html("On <b>break</b> & back")).toBe("On &lt;b&gt;break&lt;/b&gt; &amp; back");
    expect(html(`"quoted" 'single' &amp;`)).toBe(`"quoted" 'single' &amp;amp;`);
    expect(html("I <3 GitLab :tada:")).toBe(
      'I &lt;3 GitLab <gl-emoji title="party popper" data-name="tada" data-unicode-version="6.0">🎉</gl-emoji>',
    );
  });

  it("makes injection attempts text", () => {
    expect(html("<script>alert(1)</script>")).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html(':"><img src=x onerror=alert(1)>:')).toBe(':"&gt;&lt;img src=x onerror=alert(1)&gt;:');
    expect(html(':smile:"><img src=x onerror=alert(1)>')).toBe(
      `${SMILE}"&gt;&lt;img src=x onerror=alert(1)&gt;`,
    );
    expect(html(':smile" onmouseover="alert(1):')).toBe(':smile" onmouseover="alert(1):');
    expect(html("</gl-emoji><gl-emoji>")).toBe("&lt;/gl-emoji&gt;&lt;gl-emoji&gt;");
  });

  it("escapes the attributes of the element", () => {
    expect(html("🇧🇦")).toBe(
      '<gl-emoji title="flag: Bosnia &amp; Herzegovina" data-name="flag_ba" data-unicode-version="8.0">🇧🇦</gl-emoji>',
    );
  });

  it("never lets markup through but its own elements", () => {
    const piece = fc.constantFrom(
      ":",
      "smile",
      "+1",
      "<",
      ">",
      "&",
      '"',
      "'",
      "☕",
      "\uFE0E",
      "\u200D",
      "🏻",
      "x",
      " ",
    );
    const text = fc.oneof(
      fc.string({ maxLength: 100 }),
      fc.array(piece, { maxLength: 40 }).map((p) => p.join("")),
    );
    fc.assert(
      fc.property(text, (message) => {
        const rest = html(message).replace(
          /<gl-emoji title="[^"<>]*" data-name="[^"<>]+" data-unicode-version="[\d.]+">[^<>]+<\/gl-emoji>/g,
          "",
        );
        expect(rest).not.toMatch(/[<>]|&(?!amp;|lt;|gt;)/);
      }),
    );
  });
});

describe("emojiPipelineHtml: messages up to the 100-character limit", () => {
  it("converts every emoji of a message full of them", () => {
    expect(count("🚀".repeat(100))).toBe(100);
    expect(html(":+1: ".repeat(20))).toBe(`${THUMBSUP} `.repeat(20));
    expect(count(":smile: ☕".repeat(10))).toBe(20);
  });

  it("renders long messages of colons and near-codes as text", () => {
    for (const text of [":".repeat(100), ":a".repeat(50), ":smile".repeat(16), "&<>".repeat(33)])
      expect(html(text).replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">")).toBe(text);
  });

  it("is an empty string for an empty message", () => {
    expect(html("")).toBe("");
  });
});
