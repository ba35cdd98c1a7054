// How bench:idle finds and names the stack's processes (bench/src/stack-memory.ts). Linux only: /proc.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { kbField, nameOf, processMemory, processTree } from "../src/stack-memory";

describe("nameOf", () => {
  it("names a service by its entry in services.json, with or without node flags before it", () => {
    expect(nameOf("/usr/bin/node\0services/auth/dist/main.js\0")).toBe("auth");
    expect(nameOf("node\0--max-semi-space-size=4\0/srv/canopy/gateway/dist/main.js\0")).toBe("gateway");
  });

  it("names the launcher, and anything else by its program", () => {
    expect(nameOf("/usr/bin/node\0deploy/start.mjs\0")).toBe("launcher");
    expect(nameOf("/usr/sbin/slapd\0-d\0stats\0")).toBe("slapd");
  });
});

describe("kbField", () => {
  it("reads a kB field of /proc/<pid>/status in bytes, undefined when absent", () => {
    const status = "Name:\tnode\nVmHWM:\t  120000 kB\nVmRSS:\t   81234 kB\nRssAnon:\t   40000 kB\n";
    expect(kbField(status, "VmRSS")).toBe(81_234 * 1024);
    expect(kbField(status, "RssAnon")).toBe(40_000 * 1024);
    expect(kbField(status, "RssFile")).toBeUndefined();
  });
});

describe("processTree and processMemory", () => {
  it("find a child and a grandchild of this process and read their resident memory", async () => {
    // sh starts sleep as its child: a grandchild of the test (up to 10 s for it on a busy machine).
    const child = spawn("sh", ["-c", "sleep 30 & wait"], { stdio: "ignore" });
    try {
      let tree: number[] = [];
      for (let i = 0; i < 500 && tree.length < 2; i++) {
        await new Promise((r) => setTimeout(r, 20));
        tree = processTree(child.pid!);
      }
      expect(tree[0]).toBe(child.pid);
      expect(nameOf(readFileSync(`/proc/${tree[1]}/cmdline`, "utf8"))).toBe("sleep");
      expect(processTree(process.pid)).toEqual(expect.arrayContaining(tree));
      const memory = processMemory(child.pid!, "sh");
      expect(memory).toMatchObject({ name: "sh", pid: child.pid });
      expect(memory!.rss).toBeGreaterThan(0);
      expect(memory!.anon + memory!.file).toBeLessThanOrEqual(memory!.rss);
    } finally {
      child.kill("SIGKILL");
    }
  }, 15_000);
});
