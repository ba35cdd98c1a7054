import { decodeCursor, encodeCursor, listOrder } from "../../src/domain/list-order";

describe("listOrder", () => {
  it("ties by id ascending except for order_by=id; similarity only with a search", () => {
    expect(listOrder("", "", false).keys).toEqual([
      { column: "name", desc: false },
      { column: "id", desc: false },
    ]);
    expect(listOrder("path", "desc", false).keys).toEqual([
      { column: "path", desc: true },
      { column: "id", desc: false },
    ]);
    expect(listOrder("id", "desc", false).keys).toEqual([{ column: "id", desc: true }]);
    expect(listOrder("similarity", "asc", false).tag).toBe("name:asc");
    expect(listOrder("similarity", "asc", true).keys.map((k) => k.desc)).toEqual([true, true, true]);
  });
});

describe("cursors", () => {
  const order = listOrder("name", "asc", false);

  it("round-trip the key of a row", () => {
    expect(decodeCursor(order, encodeCursor(order, ["Zoë", 42]))).toEqual(["Zoë", 42]);
  });

  it.each([
    ["not base64url!"],
    [Buffer.from("[1,2]").toString("base64url")],
    [Buffer.from("null").toString("base64url")],
    [Buffer.from("{").toString("base64url")],
    [encodeCursor(order, ["a"])],
    [encodeCursor(order, [1, 2])],
    [encodeCursor(order, ["a", -1])],
    [encodeCursor(order, ["a", 1.5])],
    [encodeCursor(order, ["a\u0000", 1])],
    [encodeCursor(listOrder("name", "desc", false), ["a", 1])],
    ["A".repeat(3000)],
  ])("refuse %s", (cursor) => {
    expect(decodeCursor(order, cursor)).toBeUndefined();
  });

  it("carry a similarity score exactly", () => {
    const sim = listOrder("similarity", "", true);
    const key = [1.0700000524520874, 0, 7];
    expect(decodeCursor(sim, encodeCursor(sim, key))).toEqual(key);
  });
});
