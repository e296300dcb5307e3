// `node observe.mjs <module URL>`: imports the module in this fresh process and prints, as JSON, what that
// loaded: every file (ES imports through a resolve hook, CommonJS through require's cache), the built-in
// modules among them, and the native addons (process.dlopen).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire, register } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const [entry] = process.argv.slice(2);
if (!entry) {
  process.stderr.write("observe.mjs: give the URL of the module to import\n");
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), "stepwise-loaded-"));
const log = join(dir, "resolved.txt");
register(new URL("./hooks.mjs", import.meta.url), { data: { log } });

const addons = [];
const dlopen = process.dlopen;
process.dlopen = function (module, filename, ...rest) {
  addons.push(filename);
  return dlopen.call(this, module, filename, ...rest);
};

await import(entry);

const urls = new Set(readFileSync(log, "utf8").split("\n").filter(Boolean));
rmSync(dir, { recursive: true, force: true });
const files = new Set([...urls].filter((url) => url.startsWith("file:")).map((url) => fileURLToPath(url)));
for (const file of Object.keys(createRequire(import.meta.url).cache)) files.add(file);
const builtins = [...urls].filter((url) => url.startsWith("node:")).sort();
process.stdout.write(`${JSON.stringify({ files: [...files].sort(), builtins, addons })}\n`);
