import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";

/** The package's built files: from src/web (tests) and from dist/web alike, two folders up then dist/. */
const DIST = new URL("../../dist/", import.meta.url);

/** The compiled modules the browser may load: the page's own, and the pure modules they import. */
const BROWSER_MODULE = /^\/assets\/((?:web\/page\/[a-z0-9-]+|models\/model-prices|runs\/durations)\.js)$/;

/**
 * The page is a typed module (src/web/page/*.ts) that `npm run build` compiles with the package;
 * the viewer serves the compiled files from dist/. Undefined when `path` names no such module.
 */
export async function pageModule(path: string): Promise<string | undefined> {
  const module = BROWSER_MODULE.exec(path)?.[1];
  if (module === undefined) return undefined;
  try {
    return await readFile(fileURLToPath(new URL(module, DIST)), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(`the viewer's page module ${module} is not built: run npm run build`);
    }
    throw error;
  }
}
