import { z } from "zod";
import { baseConfigSchema, ConfigError, loadConfig } from "@canopy/kit";

const serviceSchema = baseConfigSchema.extend({
  CANOPY_GRPC_PORT: z.coerce.number().int().min(1).max(65535),
  CANOPY_SIGNING_KEY: z.string().min(16),
  CANOPY_PLAN: z.enum(["free", "premium", "ultimate"]).default("ultimate"),
});

/** Runs loadConfig and returns the ConfigError it throws (fails the test if it does not throw). */
function configErrorFor(env: NodeJS.ProcessEnv): ConfigError {
  try {
    loadConfig(serviceSchema, env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error("loadConfig accepted an invalid environment");
}

describe("loadConfig", () => {
  it("applies the working local defaults when nothing is set", () => {
    expect(loadConfig(baseConfigSchema, {})).toEqual({
      CANOPY_DATABASE_URL: "postgres://postgres@127.0.0.1:5432/canopy",
      CANOPY_REDIS_URL: "redis://127.0.0.1:6379",
      CANOPY_NATS_URL: "nats://127.0.0.1:4222",
      CANOPY_EVENT_STREAM: "CANOPY",
      CANOPY_LOG_LEVEL: "info",
      CANOPY_HEALTH_PORT: 0,
      CANOPY_HEALTH_HOST: "127.0.0.1",
      CANOPY_GRPC_HOST: "127.0.0.1",
    });
  });

  it("uses the values that are set, coerced to their types, and ignores unrelated variables", () => {
    const config = loadConfig(serviceSchema, {
      CANOPY_REDIS_URL: "redis://cache.internal:6380",
      CANOPY_HEALTH_PORT: "9464",
      CANOPY_GRPC_PORT: "50051",
      CANOPY_SIGNING_KEY: "0123456789abcdef",
      CANOPY_PLAN: "free",
      HOME: "/root",
    });
    expect(config.CANOPY_REDIS_URL).toBe("redis://cache.internal:6380");
    expect(config.CANOPY_HEALTH_PORT).toBe(9464);
    expect(config.CANOPY_GRPC_PORT).toBe(50051);
    expect(config.CANOPY_PLAN).toBe("free");
    expect(config).not.toHaveProperty("HOME");
  });

  it("treats an empty string as unset: the default applies", () => {
    const config = loadConfig(baseConfigSchema, {
      CANOPY_LOG_LEVEL: "",
      CANOPY_HEALTH_PORT: "",
      CANOPY_NATS_URL: "",
    });
    expect(config.CANOPY_LOG_LEVEL).toBe("info");
    expect(config.CANOPY_HEALTH_PORT).toBe(0);
    expect(config.CANOPY_NATS_URL).toBe("nats://127.0.0.1:4222");
  });

  it("treats an empty required variable as missing, not as invalid", () => {
    const err = configErrorFor({ CANOPY_GRPC_PORT: "50051", CANOPY_SIGNING_KEY: "" });
    expect(err.problems).toEqual(["CANOPY_SIGNING_KEY is missing"]);
  });

  it("throws ONE ConfigError that lists every missing and every invalid variable", () => {
    const err = configErrorFor({
      CANOPY_LOG_LEVEL: "loud",
      CANOPY_HEALTH_PORT: "70000",
      CANOPY_REDIS_URL: "not a url",
      CANOPY_SIGNING_KEY: "short",
    });
    expect(err.name).toBe("ConfigError");
    const problemFor = (name: string) => err.problems.find((p) => p.startsWith(`${name} `));
    expect(problemFor("CANOPY_GRPC_PORT")).toBe("CANOPY_GRPC_PORT is missing");
    expect(problemFor("CANOPY_LOG_LEVEL")).toMatch(/^CANOPY_LOG_LEVEL is invalid: /);
    expect(problemFor("CANOPY_HEALTH_PORT")).toMatch(/^CANOPY_HEALTH_PORT is invalid: /);
    expect(problemFor("CANOPY_REDIS_URL")).toMatch(/^CANOPY_REDIS_URL is invalid: /);
    expect(problemFor("CANOPY_SIGNING_KEY")).toMatch(/^CANOPY_SIGNING_KEY is invalid: /);
    expect(err.problems).toHaveLength(5);
    // The message names every problem, one per line, so the operator fixes them all in one go.
    for (const problem of err.problems) expect(err.message).toContain(`  - ${problem}`);
  });

  it.each(["canopy.test", "CANOPY TEST", "canopy>", "a/b", "x".repeat(64)])(
    "rejects CANOPY_EVENT_STREAM %j: the stream name is also its subjects' first token",
    (name) => {
      const err = configErrorFor({
        CANOPY_GRPC_PORT: "50051",
        CANOPY_SIGNING_KEY: "0123456789abcdef",
        CANOPY_EVENT_STREAM: name,
      });
      expect(err.problems).toEqual([expect.stringMatching(/^CANOPY_EVENT_STREAM is invalid: /)]);
    },
  );

  it("says which characters a stream name may have", () => {
    const err = configErrorFor({ CANOPY_EVENT_STREAM: "canopy.test" });
    expect(err.message).toContain(
      "CANOPY_EVENT_STREAM is invalid: letters, digits, '_' or '-' (it also names the stream's subjects, lower-cased)",
    );
  });

  it("accepts a stream name of letters, digits, '_' and '-'", () => {
    const env = { CANOPY_EVENT_STREAM: "Canopy_test-01" };
    expect(loadConfig(baseConfigSchema, env).CANOPY_EVENT_STREAM).toBe("Canopy_test-01");
  });

  it("rejects a non-numeric port instead of turning it into NaN", () => {
    const err = configErrorFor({ CANOPY_GRPC_PORT: "fifty", CANOPY_SIGNING_KEY: "0123456789abcdef" });
    expect(err.problems).toEqual([expect.stringMatching(/^CANOPY_GRPC_PORT is invalid: /)]);
  });

  it("reads process.env when no environment is passed", () => {
    const saved = process.env.CANOPY_LOG_LEVEL;
    process.env.CANOPY_LOG_LEVEL = "debug";
    try {
      expect(loadConfig(baseConfigSchema).CANOPY_LOG_LEVEL).toBe("debug");
    } finally {
      if (saved === undefined) delete process.env.CANOPY_LOG_LEVEL;
      else process.env.CANOPY_LOG_LEVEL = saved;
    }
  });
});
