import { readdir } from "node:fs/promises";
import path from "node:path";
import { SKIPPED_DIRECTORIES } from "./workspace-limits.js";

export type WalkEntry = { absolute: string; kind: "file" | "directory" | "symlink" | "other" };

export type WalkOptions = {
  /** Descend into sub-folders (default: only the folder's own entries). */
  recursive?: boolean;
  /** Told about each folder passed over because it is in SKIPPED_DIRECTORIES. */
  onSkip?: (absolute: string) => void;
};

/**
 * Depth-first, name-ordered walk below `directory` (not including it). Never follows symbolic
 * links, so a walk stays inside the folder it started in; skips SKIPPED_DIRECTORIES. Unreadable
 * folders are passed over silently.
 */
export async function* walkWorkspace(directory: string, options: WalkOptions = {}): AsyncGenerator<WalkEntry> {
  let entries;
  try {
    entries = await readdir(directory, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const absolute = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (SKIPPED_DIRECTORIES.has(entry.name)) {
        options.onSkip?.(absolute);
        continue;
      }
      yield { absolute, kind: "directory" };
      if (options.recursive) yield* walkWorkspace(absolute, options);
    } else {
      yield { absolute, kind: entry.isFile() ? "file" : entry.isSymbolicLink() ? "symlink" : "other" };
    }
  }
}
