// The JavaScript and TypeScript of the page (web/) and of the npm package
// (bindings/wasm): eslint's recommended rules, and typescript-eslint's for
// the page's TypeScript. Run from the repository's root by .ci/lint.sh.
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["**/node_modules/", "**/target/", "**/dist/", "bindings/wasm/pkg/", "bindings/wasm/tests/bundlers/.*/"],
  },
  {
    files: ["web/**/*.{js,mjs,ts}", "bindings/wasm/**/*.{js,mjs,cjs}", "scripts/**/*.mjs"],
    extends: [js.configs.recommended],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser, ...globals.node },
    },
    rules: {
      // Members taken out of an object to keep the rest are unused on purpose.
      "no-unused-vars": ["error", { ignoreRestSiblings: true }],
    },
  },
  {
    files: ["bindings/wasm/index.cjs"],
    languageOptions: { sourceType: "commonjs" },
  },
  {
    files: ["web/**/*.ts"],
    extends: [tseslint.configs.recommended],
  },
);
