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

// Framework adapters load frameworks a user may not have installed: only their own subpath
// (`stepwise/langchain`, `stepwise/openai-agents`) may reach them, never the package root.
const OPTIONAL_PEERS = ["langchain", "@langchain/", "@openai/agents"];

describe("optional peers", () => {
  it("nothing the package root loads imports LangChain.js or the OpenAI Agents SDK", () => {
    const reached = new Set<string>();
    const offending: string[] = [];
    const visit = (file: string) => {
      if (reached.has(file)) return;
      reached.add(file);
      const text = readFileSync(file, "utf8");
      for (const match of text.matchAll(/^\s*(?:import|export)(?!\s+type\b)[^;]*?from\s+"([^"]+)"/gms)) {
        const specifier = match[1] ?? "";
        if (specifier.startsWith(".")) visit(resolve(file, "..", specifier.replace(/\.js$/, ".ts")));
        else if (OPTIONAL_PEERS.some((peer) => specifier === peer || specifier.startsWith(peer))) offending.push(`${relative(SRC, file)} -> ${specifier}`);
      }
    };
    visit(join(SRC, "index.ts"));
    expect(reached.size).toBeGreaterThan(20);
    expect(offending).toEqual([]);
  });
});
