// ESLint (flat config) for static/js (browser ES modules, no build step) and tests/js (their
// unit tests, run by `node --test tests/js`).
// Run from frontend/: `npm ci && npm run lint`.
import js from "@eslint/js";
import globals from "globals";
import {fileURLToPath} from "node:url";

// The files live beside frontend/, not in it: patterns are relative to the repository root.
const root = fileURLToPath(new URL("..", import.meta.url));

export default [
  {basePath: root, ignores: ["static/vendor/**"]},
  {basePath: root, files: ["static/js/**/*.js"], ...js.configs.recommended},
  {
    basePath: root,
    files: ["static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2023,
      sourceType: "module",
      globals: {...globals.browser},
    },
    rules: {
      "no-unused-vars": ["error", {argsIgnorePattern: "^_"}],
      "prefer-const": "error",
      "no-var": "error",
      eqeqeq: ["error", "always"],
      "no-implicit-globals": "error",
    },
  },
  {basePath: root, files: ["tests/js/**/*.mjs"], ...js.configs.recommended},
  {
    basePath: root,
    files: ["tests/js/**/*.mjs"],
    // document and window: the page the DOM tests install (tests/js/dom.mjs, happy-dom).
    languageOptions: {ecmaVersion: 2023, sourceType: "module", globals: {...globals.node, document: "readonly", window: "readonly"}},
    rules: {"prefer-const": "error", "no-var": "error", eqeqeq: ["error", "always"]},
  },
];
