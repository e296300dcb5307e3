import type { Stats } from "node:fs";
import type { HeldFolder } from "./held-folder.js";
import type { Protection } from "./protected-paths.js";
import { SKIPPED_DIRECTORIES } from "./workspace-limits.js";

export type WalkEntry = {
  /** The open folder the entry is in; valid until the walk moves past the entry. */
  folder: HeldFolder;
  name: string;
  /** Relative to the workspace root, "/"-separated. */
  relative: string;
  kind: "file" | "directory" | "symlink" | "other";
  stats: Stats;
};

export type WalkOptions = {
  /** Descend into sub-folders (default: only the folder's own entries). */
  recursive?: boolean;
  /** Told about each folder passed over because it is in SKIPPED_DIRECTORIES. */
  onSkip?: (relative: string) => void;
  /** Hidden places (the run store) are left out without a word. */
  protection: Protection;
};

/**
 * Depth-first, name-ordered walk below an open folder (not including it). Each sub-folder is opened
 * through its parent's descriptor without following links, so a walk stays inside the folder it
 * started in even while folders are swapped for links under it. Skips SKIPPED_DIRECTORIES; entries
 * that vanish or cannot be opened are passed over silently.
 */
export async function* walkWorkspace(folder: HeldFolder, options: WalkOptions): AsyncGenerator<WalkEntry> {
  let names: string[];
  try {
    names = await folder.names();
  } catch {
    return;
  }
  names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const name of names) {
    const relative = folder.childRelative(name);
    const stats = await folder.look(name).catch(() => undefined);
    if (stats === undefined || options.protection.refuses(relative, stats, "read") !== undefined) continue;
    if (!stats.isDirectory()) {
      yield { folder, name, relative, stats, kind: stats.isFile() ? "file" : stats.isSymbolicLink() ? "symlink" : "other" };
      continue;
    }
    if (SKIPPED_DIRECTORIES.has(name)) {
      options.onSkip?.(relative);
      continue;
    }
    yield { folder, name, relative, stats, kind: "directory" };
    if (!options.recursive) continue;
    const sub = await folder.openFolder(name).catch(() => undefined);
    if (sub === undefined) continue;
    try {
      yield* walkWorkspace(sub, options);
    } finally {
      await sub.close();
    }
  }
}
