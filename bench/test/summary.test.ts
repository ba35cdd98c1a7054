// The report `npm run bench` writes and the README block it rewrites (bench/src/summary.ts).
import { BEGIN, END, cell, duration, renderMarkdown, replaceBlock, type Report } from "../src/summary";

const report = (over: Partial<Report> = {}): Report => ({
  date: "2026-11-26T02:30:12.345Z",
  mode: "full",
  machine: { cpu: "Test CPU @ 2.0GHz", cores: 2, memoryGb: 7.8, os: "Linux 6.1" },
  node: "v20.19.0",
  loadAverage: [1.5, 4.25],
  seconds: 1_425,
  runs: [
    {
      bench: "ldap",
      started: "2026-11-26T02:50:00.000Z",
      exitCode: 0,
      seconds: 95,
      loadAverage: [1.5, 2],
      result: {
        bench: "ldap",
        settings: { members: 5000 },
        figures: [
          { case: "first sync", figure: "6.10 s", target: "≤ 10 s", verdict: "ok" },
          { case: "unchanged directory", figure: "0.36 s" },
          { case: "one leaver", figure: "1.20 s", target: "≤ 1 s", verdict: "MISSED" },
        ],
      },
    },
  ],
  ...over,
});

describe("renderMarkdown", () => {
  it("heads the report with the date, machine, Node and load average, and counts the targets met", () => {
    const md = renderMarkdown(report());
    const [heading, , count] = md.split("\n");
    expect(heading).toBe(
      "Run of 2026-11-26 02:30 UTC, every bench at its default size, 23 min 45 s in all. Machine: 2 × " +
        "Test CPU @ 2.0GHz, 7.8 GB, Linux 6.1; Node v20.19.0; load average (1 min) 1.50 at the start, 4.25 at the end.",
    );
    expect(count).toBe("1 of 2 targets met.");
  });

  it("gives every figure a row: bench, case, figure, target, verdict (blank without a target)", () => {
    const md = renderMarkdown(report());
    expect(md).toContain("| Bench | Case | Figure | Target | Verdict |\n|---|---|---|---|---|\n");
    expect(md).toContain("| ldap | first sync | 6.10 s | ≤ 10 s | ok |\n");
    expect(md).toContain("| ldap | unchanged directory | 0.36 s |  |  |\n");
    expect(md).toContain("| ldap | one leaver | 1.20 s | ≤ 1 s | MISSED |\n");
    expect(md).toContain("| ldap | members 5000 | 02:50 | 1 min 35 s | 1.50 → 2.00 | 0 |\n");
  });

  it("shows a bench that crashed as FAILED, with its last output, and names it in the count", () => {
    const md = renderMarkdown(
      report({
        runs: [
          ...report().runs,
          {
            bench: "hooks",
            started: "2026-11-26T02:52:00.000Z",
            exitCode: 1,
            seconds: 12,
            loadAverage: [2, 3],
            error: "hooks failed: boom",
          },
        ],
      }),
    );
    expect(md).toContain("1 of 2 targets met; 1 bench(es) failed: hooks.");
    expect(md).toContain("| hooks | the bench itself | hooks failed: boom | exit 0 | FAILED |\n");
    expect(md).toContain("| hooks |  | 02:52 | 12 s | 2.00 → 3.00 | 1 |\n");
  });

  it("says when a bench took more than one attempt", () => {
    const [ldap] = report().runs;
    const md = renderMarkdown(report({ runs: [{ ...ldap!, attempts: 2 }] }));
    expect(md).toContain(
      "| ldap | members 5000 | 02:50 | 1 min 35 s (attempt 2; earlier ones crashed) | 1.50 → 2.00 | 0 |\n",
    );
  });

  it("names a bench run again after the whole run, with when", () => {
    const [ldap] = report().runs;
    const md = renderMarkdown(report({ runs: [{ ...ldap!, started: "2026-11-26T03:10:00.000Z" }] }));
    expect(md).toContain("\nRun again afterwards with `BENCH_UPDATE=1`: ldap (2026-11-26 03:10 UTC).\n");
    expect(renderMarkdown(report())).not.toContain("Run again");
  });

  it("says when the run was a quick one", () => {
    expect(renderMarkdown(report({ mode: "quick" }))).toContain("quick mode (BENCH_QUICK=1: small sizes)");
  });
});

describe("cell", () => {
  it("escapes pipes and joins lines, so a figure cannot break the table", () => {
    expect(cell("a | b\n  c")).toBe("a \\| b c");
  });
});

describe("duration", () => {
  it("shows seconds under a minute, minutes and seconds above", () => {
    expect([duration(59.4), duration(60), duration(3_725)]).toEqual(["59 s", "1 min 00 s", "62 min 05 s"]);
  });
});

describe("replaceBlock", () => {
  const readme = `# Title\n\n## Benchmarks\n\n${BEGIN}\nold table\n${END}\n\nAfter.\n`;

  it("replaces only what stands between the markers, keeping them for the next run", () => {
    const once = replaceBlock(readme, "| new | table |\n");
    expect(once).toBe(`# Title\n\n## Benchmarks\n\n${BEGIN}\n| new | table |\n${END}\n\nAfter.\n`);
    expect(replaceBlock(once, "again\n")).toBe(
      `# Title\n\n## Benchmarks\n\n${BEGIN}\nagain\n${END}\n\nAfter.\n`,
    );
  });

  it("refuses a README without both markers in order", () => {
    expect(() => replaceBlock("# Title\n", "x")).toThrow(/no <!-- bench:begin -->/);
    expect(() => replaceBlock(`${END}\n${BEGIN}\n`, "x")).toThrow(/in that order/);
  });
});
