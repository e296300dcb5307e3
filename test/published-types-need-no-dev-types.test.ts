import { existsSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A consumer type-checking with `skipLibCheck: false` reads every declaration file our exports reach.
// One that imports a package whose types we only have as a devDependency (`@types/pg`) fails there
// with TS7016. `npm run test:consumers` proves it in real projects, slowly; this catches it in `npm test`.
const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as {
  exports: Record<string, string | { types?: string }>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
};

/** Packages typed only by a devDependency `@types/…` that consumers would not get. */
function devTypedPackages(): Set<string> {
  const shipped = new Set(Object.keys(pkg.dependencies ?? {}));
  return new Set(
    Object.keys(pkg.devDependencies ?? {})
      .filter((name) => name.startsWith("@types/") && !shipped.has(name))
      .map((name) => name.slice("@types/".length).replace(/^(.+)__(.+)$/, "@$1/$2")),
  );
}

/** Every built declaration file a package export reaches, with the bare modules it imports. */
function reachableDeclarations(): Map<string, string[]> {
  const entries = Object.values(pkg.exports).flatMap((entry) => (typeof entry === "object" && entry.types ? [resolve(ROOT, entry.types)] : []));
  const seen = new Map<string, string[]>();
  const todo = [...entries];
  while (todo.length > 0) {
    const file = todo.pop() as string;
    if (seen.has(file)) continue;
    const bare: string[] = [];
    for (const match of readFileSync(file, "utf8").matchAll(/(?:\bfrom|\bimport)\s*\(?\s*"([^"]+)"/g)) {
      const specifier = match[1] as string;
      if (!specifier.startsWith(".")) bare.push(specifier);
      else {
        const target = resolve(dirname(file), specifier.replace(/\.js$/, ".d.ts"));
        if (existsSync(target)) todo.push(target);
      }
    }
    seen.set(file, bare);
  }
  return seen;
}

describe("published declarations", () => {
  it("import no package whose types are only a devDependency of ours", () => {
    const devTyped = devTypedPackages();
    expect(devTyped.size).toBeGreaterThan(0);
    const declarations = reachableDeclarations();
    expect(declarations.size).toBeGreaterThan(10);
    const leaks = [...declarations].flatMap(([file, modules]) =>
      modules.filter((module) => devTyped.has(module.split("/").slice(0, module.startsWith("@") ? 2 : 1).join("/"))).map((module) => `${relative(ROOT, file)} imports ${module}`),
    );
    expect(leaks).toEqual([]);
  });
});
