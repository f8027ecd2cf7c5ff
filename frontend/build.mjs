// Builds static/vendor/codemirror.js and its license notice from src/editor.js.
// Run from frontend/: `npm ci && npm run build`.
import {build} from "esbuild";
import {readFileSync, writeFileSync, mkdirSync, existsSync} from "node:fs";
import {dirname, join, resolve} from "node:path";
import {fileURLToPath} from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const vendorDir = resolve(here, "..", "static", "vendor");
const outfile = join(vendorDir, "codemirror.js");
const licenseFile = join(vendorDir, "codemirror.LICENSE.txt");

mkdirSync(vendorDir, {recursive: true});

const result = await build({
  entryPoints: [join(here, "src", "editor.js")],
  bundle: true,
  format: "iife",
  minify: true,
  target: ["es2020"],
  legalComments: "none",
  banner: {js: "/*! gradlab editor: CodeMirror 6 and friends, MIT licensed; see codemirror.LICENSE.txt */"},
  metafile: true,
  outfile,
  logLevel: "warning",
});

// Every npm package whose code ended up in the bundle, with its license text
// (packages that were imported but tree-shaken away entirely are left out).
const output = Object.values(result.metafile.outputs)[0];
const packages = new Map();
for (const [input, {bytesInOutput}] of Object.entries(output.inputs)) {
  if (bytesInOutput === 0) continue;
  const match = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (!match || packages.has(match[1])) continue;
  const dir = join(here, "node_modules", match[1]);
  const {version, license} = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const licensePath = ["LICENSE", "LICENSE.md", "LICENSE.txt"].map((f) => join(dir, f)).find(existsSync);
  if (!licensePath) throw new Error(`no LICENSE file in ${match[1]}`);
  packages.set(match[1], {version, license, text: readFileSync(licensePath, "utf8").trim()});
}

// Group packages sharing an identical license text so the notice stays short.
const byText = new Map();
for (const [name, info] of [...packages].sort(([a], [b]) => a.localeCompare(b))) {
  if (!byText.has(info.text)) byText.set(info.text, []);
  byText.get(info.text).push(`${name}@${info.version} (${info.license})`);
}
const sections = [...byText].map(([text, names]) => `${names.join("\n")}\n\n${text}`);
writeFileSync(licenseFile,
  "static/vendor/codemirror.js bundles the following npm packages (built from frontend/).\n\n" +
  sections.join("\n\n" + "-".repeat(72) + "\n\n") + "\n");

console.log(`wrote ${outfile} (${(output.bytes / 1024).toFixed(1)} KiB, ${packages.size} packages)`);
