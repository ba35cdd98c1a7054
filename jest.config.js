// Unit and contract tests run from TypeScript sources (swc, no type-check: `npm run build` does
// that); e2e tests drive the built stack. Both talk to real PostgreSQL, Redis and NATS. Domain tests
// (test/domain/) are pure rules: they run in the unit project too, and alone, without any
// infrastructure, as `npm run test:domain`.
const transform = { "^.+\\.ts$": ["@swc/jest", { jsc: { target: "es2022" } }] };
const moduleNameMapper = {
  "^@canopy/protos$": "<rootDir>/protos/src",
  "^@canopy/kit$": "<rootDir>/services/kit/src",
  "^@canopy/kit/testing$": "<rootDir>/services/kit/src/testing",
  "^@canopy/auth$": "<rootDir>/services/auth/src",
  "^@canopy/gateway$": "<rootDir>/gateway/src",
};
const common = { rootDir: __dirname, transform, moduleNameMapper, testEnvironment: "node" };

module.exports = {
  projects: [
    {
      ...common,
      displayName: "domain",
      testMatch: ["<rootDir>/{services/*,gateway,protos}/test/domain/**/*.test.ts"],
    },
    {
      ...common,
      displayName: "unit",
      testMatch: ["<rootDir>/{services/*,gateway,protos}/{src,test}/**/*.test.ts"],
      globalSetup: "<rootDir>/jest/global-setup.js",
      globalTeardown: "<rootDir>/jest/global-teardown.js",
    },
    {
      ...common,
      displayName: "e2e",
      testMatch: ["<rootDir>/e2e/test/**/*.test.ts"],
    },
  ],
};
