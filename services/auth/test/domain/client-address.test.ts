import { recordedAddress } from "../../src/domain/client-address";

describe("recordedAddress", () => {
  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["::ffff:203.0.113.9", "203.0.113.9"],
    ["::FFFF:127.0.0.1", "127.0.0.1"],
    ["2001:db8::1", "2001:db8::1"],
    [" 198.51.100.7 ", "198.51.100.7"],
  ])("keeps the address %s as %s", (seen, recorded) => {
    expect(recordedAddress(seen)).toBe(recorded);
  });

  it.each(["", "unknown", "203.0.113.9, 10.0.0.1", "999.1.1.1", "::ffff:999.1.1.1", "<script>"])(
    "records nothing for %j",
    (seen) => {
      expect(recordedAddress(seen)).toBeNull();
    },
  );
});
