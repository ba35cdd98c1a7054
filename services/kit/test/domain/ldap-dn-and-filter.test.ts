import {
  escapeDnValue,
  escapeLdapFilterValue,
  isValidDn,
  normalizeDn,
  normalizeDnValue,
  parseDn,
  parseLdapFilter,
} from "@canopy/kit";

// DNs as GitLab normalizes them (an identity's extern_uid), and filters as configuration gives them.

describe("normalizeDn", () => {
  test.each([
    ["uid=John Smith,ou=People,dc=example,dc=com", "uid=john smith,ou=people,dc=example,dc=com"],
    // Spaces around names, values and separators go.
    [
      " uid = John Smith , ou = People , dc = example , dc = com ",
      "uid=john smith,ou=people,dc=example,dc=com",
    ],
    // Escapes are written the one canonical way: needless ones dropped, hex pairs decoded.
    ["uid=John\\ Smith,dc=example", "uid=john smith,dc=example"],
    ["uid=John\\,Smith,dc=example", "uid=john\\,smith,dc=example"],
    ["uid=John\\2C Smith,dc=example", "uid=john\\, smith,dc=example"],
    ["cn=Caf\\C3\\A9,dc=example", "cn=café,dc=example"],
    ['uid="John, Smith",dc=example', "uid=john\\, smith,dc=example"],
    ['uid="John \\"Q\\" Smith",dc=example', 'uid=john \\"q\\" smith,dc=example'],
    // An escaped trailing space stays; unescaped ones after it go.
    ["uid=John Smith\\ ,dc=example", "uid=john smith\\ ,dc=example"],
    ["uid=John Smith\\  ,dc=example", "uid=john smith\\ ,dc=example"],
    // A value given as #hex keeps its spelling, its # escaped (as GitLab writes it).
    ["uid=#414243,dc=example", "uid=\\#414243,dc=example"],
    ["0.9.2342.19200300.100.1.1=jsmith,dc=example", "0.9.2342.19200300.100.1.1=jsmith,dc=example"],
    ["CN=Frank\\, Jr.,OU=People,DC=Example,DC=Org", "cn=frank\\, jr.,ou=people,dc=example,dc=org"],
    ["", ""],
  ])("%j -> %j", (dn, normalized) => {
    expect(normalizeDn(dn)).toBe(normalized);
  });

  test.each([
    "uid=john+telephoneNumber=555,dc=example", // multi-valued RDNs are not supported
    "uid=john,dc", // ends inside a name
    "=john,dc=example",
    "uid=jo\\4zhn,dc=example", // a bad hex pair
  ])("a DN that does not parse is kept as it is: %j", (dn) => {
    expect(normalizeDn(dn)).toBe(dn);
    expect(isValidDn(dn)).toBe(false);
  });

  test("pairs come back unescaped", () => {
    expect(parseDn("cn=Frank\\, Jr.,ou=people")).toEqual([
      ["cn", "Frank, Jr."],
      ["ou", "people"],
    ]);
  });

  test("values escape only what RFC 4514 requires", () => {
    expect(escapeDnValue(' #a,b+c"d\\e<f>g;h=i ')).toBe('\\ #a\\,b\\+c\\"d\\\\e\\<f\\>g\\;h\\=i\\ ');
    expect(escapeDnValue("#x")).toBe("\\#x");
    expect(escapeDnValue("line\nbreak\r")).toBe("line\\0abreak\\0d");
  });

  test("a uid is normalized as a DN value", () => {
    expect(normalizeDnValue("  John Smith ")).toBe("john smith");
    expect(normalizeDnValue("a\\,b")).toBe("a\\,b");
  });
});

describe("filters", () => {
  test.each([
    "(objectClass=person)",
    "objectClass=person",
    "(&(objectClass=person)(!(employeeType=former)))",
  ])("%j parses", (text) => {
    expect(parseLdapFilter(text)).toBeDefined();
  });

  test.each(["", "(", "(a=1", "(a=1)(b=2)", "(&(a=1)", "((a=1)"])("%j does not", (text) => {
    expect(parseLdapFilter(text)).toBeUndefined();
  });

  test("values for filter strings are escaped as RFC 4515 says", () => {
    expect(escapeLdapFilterValue("*)(uid=*")).toBe("\\2a\\29\\28uid=\\2a");
    expect(escapeLdapFilterValue("a\\b\0c")).toBe("a\\5cb\\00c");
  });
});
