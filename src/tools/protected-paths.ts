import type { Stats } from "node:fs";
import { realpath, stat } from "node:fs/promises";
import path from "node:path";

/** Places inside a workspace the tools treat specially. Paths are relative to the root, or absolute. */
export interface ProtectedPaths {
  /** Read and listed, but never written, created or edited through the tools (default: .git). */
  readOnly: string[];
  /** Never written, read, listed or searched: the run store (default: .stepwise). */
  hidden: string[];
}

export const DEFAULT_PROTECTED_PATHS: ProtectedPaths = { readOnly: [".git"], hidden: [".stepwise"] };

/** What a tool is about to do with a location: reading covers listing and searching. */
export type Use = "read" | "write";

type Entry = {
  level: "readOnly" | "hidden";
  /** How the model is told what is protected. */
  shown: string;
  /** Real relative path under the root, lower-cased; undefined when it lies outside. */
  relative: string | undefined;
  /** The protected file or folder as it exists now, so another name for it (a link, a case variant) is caught. */
  identity: { dev: number; ino: number } | undefined;
};

/** The protected list resolved against the root as it is on disk right now. */
export class Protection {
  private constructor(private readonly entries: Entry[]) {}

  static async resolve(config: ProtectedPaths, realRoot: string): Promise<Protection> {
    const entries: Entry[] = [];
    for (const level of ["readOnly", "hidden"] as const) {
      for (const spelled of config[level]) entries.push(await resolveEntry(level, spelled, realRoot));
    }
    return new Protection(entries);
  }

  /**
   * The protected place a use of `relative` (real, under the root) would touch, if that use is not
   * allowed there; `stats` is what is there now, when something is. Names are compared ignoring
   * case, so ".GIT" on a case-insensitive disk is not a way in.
   */
  refuses(relative: string, stats: Stats | undefined, use: Use): string | undefined {
    const lower = relative.toLowerCase();
    for (const entry of this.entries) {
      if (use === "read" && entry.level === "readOnly") continue;
      const byName = entry.relative !== undefined && (lower === entry.relative || lower.startsWith(`${entry.relative}/`));
      const byIdentity = stats !== undefined && entry.identity?.dev === stats.dev && entry.identity.ino === stats.ino;
      if (byName || byIdentity) return entry.shown;
    }
    return undefined;
  }

  isHidden(shown: string): boolean {
    return this.entries.some((entry) => entry.shown === shown && entry.level === "hidden");
  }
}

async function resolveEntry(level: Entry["level"], spelled: string, realRoot: string): Promise<Entry> {
  const absolute = path.resolve(realRoot, spelled);
  const real = await realpath(absolute).catch(() => absolute);
  const relative = path.relative(realRoot, real);
  const inside = relative !== "" && relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
  const identity = await stat(real).then(
    (found) => ({ dev: found.dev, ino: found.ino }),
    () => undefined,
  );
  const forward = relative.split(path.sep).join("/");
  return { level, shown: inside ? forward : spelled, relative: inside ? forward.toLowerCase() : undefined, identity };
}
