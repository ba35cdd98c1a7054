// Unit and contract tests run from TypeScript sources (swc, no type-check: `npm run build` does
// that); e2e tests drive the built stack. Both talk to real PostgreSQL, Redis and NATS. Domain tests
// (test/domain/) are pure rules: they run in the unit project too, and alone, without any
// infrastructure, as `npm run test:domain`.
const { readManifest } = require("./deploy/lib/manifest.cjs");

const manifest = readManifest();
// otplib's crypto and base32 dependencies (@noble, @scure) ship only as ES modules: compiled too.
const ESM_ONLY = "@noble|@scure";
const transform = {
  "^.+\\.ts$": ["@swc/jest", { jsc: { target: "es2022" } }],
  [`/node_modules/(${ESM_ONLY})/.+\\.js$`]: ["@swc/jest", { module: { type: "commonjs" } }],
};
const transformIgnorePatterns = [`/node_modules/(?!(${ESM_ONLY})/)`];
const workspaces = [...manifest.libraries, ...manifest.services];
// `@canopy/<name>` (and `@canopy/<name>/<sub>`) resolve to the sources of every library and service
// in services.json; their tests are found in the same folders.
const moduleNameMapper = Object.fromEntries(
  workspaces.flatMap(({ package: name, workspace }) => [
    [`^${name}$`, `<rootDir>/${workspace}/src`],
    [`^${name}/(.+)$`, `<rootDir>/${workspace}/src/$1`],
  ]),
);
const workspaceFolders = workspaces.map((w) => w.workspace).join(",");
// bench's own tests are of its pure parts (the report's rendering): they run with the unit tests.
const unitFolders = `${workspaceFolders},deploy,bench`;
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
      displayName: "domain",
      testMatch: [`<rootDir>/{${workspaceFolders}}/test/domain/**/*.test.ts`],
    },
    {
      ...common,
      displayName: "unit",
      testMatch: [`<rootDir>/{${unitFolders}}/{src,test}/**/*.test.ts`],
      globalSetup: "<rootDir>/jest/global-setup.js",
      globalTeardown: "<rootDir>/jest/global-teardown.js",
    },
    {
      ...common,
      displayName: "e2e",
      testMatch: ["<rootDir>/e2e/test/**/*.test.ts"],
    },
    {
      ...common,
      // The fault suite (faults/): the whole stack on servers of its own, which it stops and starts.
      displayName: "faults",
      testMatch: ["<rootDir>/faults/**/*.test.ts"],
    },
  ],
};
