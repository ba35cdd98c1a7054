// Unit and contract tests run from TypeScript sources (swc, no type-check: `npm run build` does
// that); e2e tests drive the built stack. Both talk to real PostgreSQL, Redis and NATS.
// otplib's crypto and base32 dependencies (@noble, @scure) ship only as ES modules: compiled too.
const ESM_ONLY = "@noble|@scure";
const transform = {
  "^.+\\.ts$": ["@swc/jest", { jsc: { target: "es2022" } }],
  [`/node_modules/(${ESM_ONLY})/.+\\.js$`]: ["@swc/jest", { module: { type: "commonjs" } }],
};
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_ONLY})/)`];
const moduleNameMapper = {
  "^@canopy/protos$": "<rootDir>/protos/src",
  "^@canopy/kit$": "<rootDir>/services/kit/src",
  "^@canopy/auth$": "<rootDir>/services/auth/src",
  "^@canopy/gateway$": "<rootDir>/gateway/src",
};
const common = {
  rootDir: __dirname,
  transform,
  transformIgnorePatterns,
  moduleNameMapper,
  testEnvironment: "node",
};

module.exports = {
  projects: [
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
