import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

// The package root is the core: importing it loads no native addon, database driver, provider SDK, MCP or
// telemetry package (DESIGN.md, "Layout"). Checked on the build, in fresh processes, from what they loaded.
const DIST = fileURLToPath(new URL("../dist/", import.meta.url));
const OBSERVE = fileURLToPath(new URL("./loaded-modules/observe.mjs", import.meta.url));
const HEAVY = ["pg", "better-sqlite3", "openai", "@anthropic-ai/sdk", "ai", "@modelcontextprotocol/sdk", "@opentelemetry/"];

const scratch = mkdtempSync(join(tmpdir(), "stepwise-core-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Loaded = { files: string[]; builtins: string[]; addons: string[] };

/** What importing `file` loads in a fresh Node process. */
function loadedBy(file: string): Loaded {
  const result = spawnSync(process.execPath, [OBSERVE, new URL(`file://${file}`).href], { encoding: "utf8" });
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as Loaded;
}

/** The heavy packages among the loaded files, by the node_modules folder they came from. */
function heavyPackages(loaded: Loaded): string[] {
  const packages = loaded.files.flatMap((file) => {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file.slice(file.lastIndexOf("node_modules/")));
    return match?.[1] ? [match[1]] : [];
  });
  return [...new Set(packages)].filter((name) => HEAVY.some((heavy) => (heavy.endsWith("/") ? name.startsWith(heavy) : name === heavy))).sort();
}

describe("the package root, imported in a fresh process", () => {
  it("loads no native addon and none of pg, better-sqlite3, openai, @anthropic-ai/sdk, ai, the MCP SDK or OpenTelemetry", () => {
    const loaded = loadedBy(join(DIST, "index.js"));
    expect(loaded.files.length).toBeGreaterThan(50);
    expect(heavyPackages(loaded)).toEqual([]);
    expect(loaded.addons).toEqual([]);
    expect(loaded.files.filter((file) => file.endsWith(".node"))).toEqual([]);
  });

  it("while the store subpaths, a store opened and the providers do load them, so the check above can see them", () => {
    const program = join(scratch, "heavy.mjs");
    writeFileSync(
      program,
      [
        `import { SqliteRunStore } from ${JSON.stringify(join(DIST, "stores/sqlite.js"))};`,
        `import ${JSON.stringify(join(DIST, "stores/postgres.js"))};`,
        `import ${JSON.stringify(join(DIST, "models/providers.js"))};`,
        `import ${JSON.stringify(join(DIST, "integrations/mcp.js"))};`,
        `import ${JSON.stringify(join(DIST, "integrations/open-telemetry.js"))};`,
        'new SqliteRunStore(":memory:").close();',
      ].join("\n"),
    );
    const loaded = loadedBy(program);
    expect(heavyPackages(loaded)).toEqual(expect.arrayContaining(["@anthropic-ai/sdk", "@modelcontextprotocol/sdk", "better-sqlite3", "openai", "pg"]));
    expect(heavyPackages(loaded).some((name) => name.startsWith("@opentelemetry/"))).toBe(true);
    expect(loaded.addons.some((file) => file.endsWith("better_sqlite3.node"))).toBe(true);
  });
});

/** The node: built-ins a bundle of `code` for a neutral platform (esbuild) still imports. */
async function builtinsBundled(code: string): Promise<string[]> {
  const entry = join(scratch, `entry-${Math.random().toString(36).slice(2)}.mjs`);
  writeFileSync(entry, code);
  const result = await build({ entryPoints: [entry], bundle: true, platform: "neutral", format: "esm", write: false, metafile: true, external: ["node:*"], outdir: scratch, logLevel: "silent" });
  const [output] = Object.values(result.metafile.outputs);
  return [...new Set((output?.imports ?? []).filter((i) => i.external).map((i) => i.path))].sort();
}

describe("a bundle for a neutral platform (esbuild, as for an edge or browser-like runtime)", () => {
  const root = JSON.stringify(join(DIST, "index.js"));

  it("of Agent, todoList and scriptedModel holds no node: built-in", async () => {
    expect(await builtinsBundled(`import { Agent, todoList, scriptedModel } from ${root};\nnew Agent({ model: scriptedModel(["hi"]), plugins: [todoList()] });\n`)).toEqual([]);
  });

  it("of the workspace tools holds the file system they work on", async () => {
    expect(await builtinsBundled(`import { workspaceTools } from ${root};\nconsole.log(workspaceTools);\n`)).toEqual(expect.arrayContaining(["node:fs/promises", "node:path"]));
  });
});
