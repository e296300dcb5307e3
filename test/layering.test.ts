import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// DESIGN.md's layers, top to bottom: a module may import only from its own layer and the ones above it.
// The last two are siblings over runs/: neither imports the other.
const LAYERS = ["core", "models", "planning", "stores", "tools", "runs", "integrations", "eval", "cli", "web"];
const SIBLINGS = new Set(["cli", "web"]);
// The entry point alone starts the viewer (`stepwise ui`).
const STARTS_THE_VIEWER = "cli/main.ts -> web";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "test-support" ? [] : sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

function layerOf(path: string): string {
  return relative(SRC, path).split(sep)[0] ?? "";
}

describe("layering", () => {
  it("imports point up the layer list only; core knows nothing of planning; cli and web never import each other", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = layerOf(file);
      if (!LAYERS.includes(from)) continue;
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/^\s*(?:import|export)[^;]*?from\s+"(\.[^"]+)"/gms)) {
        const target = layerOf(resolve(file, "..", match[1] ?? ""));
        if (!LAYERS.includes(target) || target === from) continue;
        const siblings = SIBLINGS.has(from) && SIBLINGS.has(target);
        if (!siblings && LAYERS.indexOf(target) < LAYERS.indexOf(from)) continue;
        const key = `${relative(SRC, file)} -> ${target}`;
        if (key !== STARTS_THE_VIEWER) violations.push(`${key} (${match[1]})`);
      }
    }
    expect(violations).toEqual([]);
  });
});

// Framework adapters and engines load packages a user may not have installed: only their own subpath
// (`stepwise/langchain`, `stepwise/openai-agents`, `stepwise/ai-sdk`, src/integrations/restate) may
// reach them, never the package root nor the `stepwise` command.
const OPTIONAL_PEERS = ["langchain", "@langchain", "@openai/agents", "ai", "@ai-sdk", "@restatedev"];
const isOptionalPeer = (specifier: string) =>
  OPTIONAL_PEERS.some((peer) => specifier === peer || specifier.startsWith(`${peer}/`) || specifier.startsWith(`${peer}-`));

describe("optional peers", () => {
  it.each(["index.ts", "cli/main.ts"])("nothing %s loads imports LangChain.js, the OpenAI Agents SDK, the AI SDK or Restate's SDK", (entry) => {
    const reached = new Set<string>();
    const offending: string[] = [];
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^;]*?from\s+"([^"]+)"/gms)) {
        const specifier = match[1] ?? "";
        if (specifier.startsWith(".")) visit(resolve(file, "..", specifier.replace(/\.js$/, ".ts")));
        else if (isOptionalPeer(specifier)) offending.push(`${relative(SRC, file)} -> ${specifier}`);
      }
    };
    visit(join(SRC, entry));
    expect(reached.size).toBeGreaterThan(20);
    expect(offending).toEqual([]);
  });
});

describe("the command's output", () => {
  it("goes through TerminalOutput alone: no module of the CLI writes to standard output or error but main.ts, which wraps them", () => {
    const writers = sourceFiles(join(SRC, "cli"))
      .filter((file) => /process\.std(out|err)/.test(readFileSync(file, "utf8")))
      .map((file) => relative(SRC, file));
    expect(writers).toEqual([join("cli", "main.ts")]);
    const main = readFileSync(join(SRC, "cli", "main.ts"), "utf8");
    expect(main.match(/process\.std(out|err)\b.*/g)).toEqual(["process.stdout);", "process.stderr);"]);
    expect(main).toContain("new TerminalOutput(process.stdout)");
    expect(main).toContain("new TerminalOutput(process.stderr)");
  });
});

describe("the package root", () => {
  it("only re-exports each part's own index (export * from …), listing no name itself", () => {
    const lines = readFileSync(join(SRC, "index.ts"), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "" && !line.startsWith("//"));
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.filter((line) => !/^export \* from "\.\/[\w/-]+\.js";$/.test(line))).toEqual([]);
  });
});
