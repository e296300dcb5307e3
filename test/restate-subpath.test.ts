import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

type PackageJson = {
  exports: Record<string, { types: string; default: string } | string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as PackageJson;

const STATIC_IMPORT = /^(?:import|export)\s[^;]*?from\s*"([^"]+)"|^import\s*"([^"]+)"/gm;

/** The packages the built module and every module it imports statically (transitively) import. */
function staticallyImportedPackages(entry: URL): Set<string> {
  const packages = new Set<string>();
  const seen = new Set<string>();
  const visit = (file: URL) => {
    if (seen.has(file.href)) return;
    seen.add(file.href);
    for (const [, from, bare] of readFileSync(file, "utf8").matchAll(STATIC_IMPORT)) {
      const specifier = (from ?? bare)!;
      if (specifier.startsWith(".")) visit(new URL(specifier, file));
      else packages.add(specifier);
    }
  };
  visit(entry);
  return packages;
}

describe("stepwise/restate", () => {
  it("is a subpath of its own, from the build, with the Restate SDK an optional peer", async () => {
    const entry = pkg.exports["./restate"] as { types: string; default: string };
    expect(entry).toEqual({ types: "./dist/integrations/restate/index.d.ts", default: "./dist/integrations/restate/index.js" });
    const restate = (await import(new URL(`../${entry.default}`, import.meta.url).href)) as Record<string, unknown>;
    for (const name of ["restateRunService", "serveRestateRuns", "registerRestateDeployment", "startRestateRun", "decideRestateRun", "restateRunStatus", "restateRunResult"]) {
      expect(typeof restate[name], name).toBe("function");
    }
    expect(pkg.peerDependencies["@restatedev/restate-sdk"]).toBe("^1.14.5");
    expect(pkg.peerDependenciesMeta["@restatedev/restate-sdk"]).toEqual({ optional: true });
  });

  // `stepwise restate serve` loads the integration with import() when it runs, so the rest of the CLI works without it.
  it("is not loaded by the package root or the CLI, which work without the SDK installed", () => {
    for (const entry of ["../dist/index.js", "../dist/cli/main.js"]) {
      const packages = staticallyImportedPackages(new URL(entry, import.meta.url));
      expect(packages.size, entry).toBeGreaterThan(0);
      expect([...packages].filter((name) => name.startsWith("@restatedev/")), entry).toEqual([]);
    }
  });
});
