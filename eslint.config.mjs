import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * Layering inside every service (services/<name>/src): rpc -> commands/finders -> domain/store, one
 * way only. `domain` is rules without I/O; `store` alone holds SQL. A layer may import those below
 * it, never those above; groups/projects/hooks/ldap get the rule by living in the same place.
 */
const layer = (folder, forbidden) => ({
  files: [`services/*/src/${folder}/**/*.ts`],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: forbidden.map((above) => ({
          group: [`**/${above}`, `**/${above}/**`, `./${above}`, `./${above}/**`],
          message: `${folder}/ may not import ${above}/: dependencies point rpc -> commands/finders -> domain/store.`,
        })),
      },
    ],
  },
});
const layering = [
  layer("rpc", ["store"]),
  layer("commands", ["rpc"]),
  layer("finders", ["rpc", "commands"]),
  layer("store", ["rpc", "commands", "finders"]),
  layer("domain", ["rpc", "commands", "finders", "store"]),
];

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "protos/src/gen/**", "e2e/artifacts/**", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: {
      globals: {
        require: "readonly",
        module: "writable",
        process: "readonly",
        console: "readonly",
        __dirname: "readonly",
        URL: "readonly",
        setTimeout: "readonly",
      },
    },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
  ...layering,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
);
