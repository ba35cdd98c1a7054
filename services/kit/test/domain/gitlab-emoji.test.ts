import { descriptionAlphaCode, emojiAt, findEmojiByName, isEmojiName } from "../../src/gitlab/emoji";

describe("findEmojiByName: GitLab's names, descriptions and versions", () => {
  it.each([
    // name given, [data-name, title, content, data-unicode-version]: the values GitLab's own specs show
    ["coffee", "coffee", "hot beverage", "☕", "6.0"],
    ["smile", "smile", "grinning face with smiling eyes", "😄", "6.0"],
    ["tada", "tada", "party popper", "🎉", "6.0"],
    ["book", "book", "open book", "📖", "6.0"],
    ["speech_balloon", "speech_balloon", "speech balloon", "💬", "6.0"],
    ["-1", "thumbsdown", "thumbs down", "👎", "6.0"],
    ["small_airplane", "airplane_small", "small airplane", "🛩️", "7.0"],
    // emoji versions 1.0 to 5.0 answer the Unicode version they came with, later ones themselves
    ["grinning", "grinning", "grinning face", "😀", "8.0"],
    ["rofl", "rofl", "rolling on the floor laughing", "🤣", "9.0"],
    ["star_struck", "star_struck", "star-struck", "🤩", "10.0"],
    ["smiling_face_with_hearts", "smiling_face_with_hearts", "smiling face with hearts", "🥰", "11.0"],
    ["heart_on_fire", "heart_on_fire", "heart on fire", "❤️‍🔥", "13.1"],
    ["melting_face", "melting_face", "melting face", "🫠", "14.0"],
    // skin tones, ZWJ sequences, flags and keycaps are emoji of their own
    ["thumbs_up_medium_skin_tone", "thumbsup_tone3", "thumbs up: medium skin tone", "👍🏽", "8.0"],
    ["man_technologist", "man_technologist", "man technologist", "👨‍💻", "9.0"],
    ["us", "flag_us", "flag: United States", "🇺🇸", "6.0"],
    ["keycap_hash", "hash", "keycap: #", "#️⃣", "6.0"],
  ])("%s is %s (%s)", (given, name, description, codepoints, unicodeVersion) => {
    expect(findEmojiByName(given)).toEqual({ name, description, codepoints, unicodeVersion });
  });

  it("keeps the presentation selector on text-default emoji, as emoji-test.txt's first form", () => {
    expect(findEmojiByName("heart")?.codepoints).toBe("\u2764\uFE0F");
    expect(findEmojiByName("tm")?.codepoints).toBe("\u2122\uFE0F");
    expect(findEmojiByName("coffee")?.codepoints).toBe("\u2615");
  });

  it("gives gemojione's names the lead over descriptions, as TanukiEmoji does", () => {
    expect(findEmojiByName("cow")?.codepoints).toBe("🐮");
    expect(findEmojiByName("cow2")?.codepoints).toBe("🐄");
    expect(findEmojiByName("sunglasses")?.codepoints).toBe("😎");
    expect(findEmojiByName("dark_sunglasses")?.codepoints).toBe("🕶️");
  });
});

describe("isEmojiName (a status' emoji)", () => {
  it.each([
    "coffee",
    "+1",
    "thumbsup",
    "thumbs_up",
    "hot_beverage",
    "rocket",
    "zzz",
    "8ball",
    "t-rex",
    "e-mail",
  ])("knows %s", (name) => expect(isEmojiName(name)).toBe(true));

  it.each([":coffee:", "Coffee", "coffee ", "", "not_an_emoji", "'; DROP TABLE user_statuses; --"])(
    "refuses %j",
    (name) => expect(isEmojiName(name)).toBe(false),
  );
});

describe("descriptionAlphaCode: TanukiEmoji's name for an emoji-test.txt description", () => {
  it.each([
    ["grinning face with smiling eyes", "grinning_face_with_smiling_eyes"],
    ["thumbs up: medium skin tone", "thumbs_up_medium_skin_tone"],
    ["flag: Côte d’Ivoire", "flag_cote_d_ivoire"],
    ["piñata", "pinata"],
    ["keycap: #", "keycap_hash"],
    ["keycap: *", "keycap_asterisk"],
    ["keycap: 10", "keycap_10"],
    ["ZZZ", "zzz"],
  ])("%s -> %s", (description, code) => expect(descriptionAlphaCode(description)).toBe(code));
});

describe("emojiAt: the longest emoji sequence at a place in a text", () => {
  const at = (text: string, index = 0) => {
    const found = emojiAt(text, index);
    return found && { name: found.emoji.name, end: found.end };
  };

  it("takes a whole sequence before its first code point", () => {
    expect(at("👍🏽!")).toEqual({ name: "thumbsup_tone3", end: 4 });
    expect(at("👨‍💻")).toEqual({ name: "man_technologist", end: 5 });
    expect(at("🏳️‍🌈")).toEqual({ name: "rainbow_flag", end: 6 });
    expect(at("a👍", 1)).toEqual({ name: "thumbsup", end: 3 });
  });

  it("knows the forms emoji-test.txt lists with a presentation selector left out, and one added", () => {
    expect(at("\u2764\uFE0F")).toEqual({ name: "heart", end: 2 });
    expect(at("\u2764")).toEqual({ name: "heart", end: 1 });
    expect(at("\u{1F3F3}\u200D\u{1F308}")).toEqual({ name: "rainbow_flag", end: 5 });
    expect(at("#\u20E3")).toEqual({ name: "hash", end: 2 });
    expect(at("\u2615\uFE0F")).toEqual({ name: "coffee", end: 2 });
  });

  it("finds nothing in plain text, a skin tone or hair alone, a lone regional letter or digit", () => {
    for (const text of ["a", ":", "#", "1", "🏻", "🦰", "\u{1F1FA}", "\u{1F1FA}x", ""])
      expect(emojiAt(text, 0)).toBeUndefined();
  });
});
