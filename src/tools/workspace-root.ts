import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../core/tool.js";

/** A path the workspace accepted: its real location on disk and how the model should see it. */
export type WorkspacePath = {
  /** Real absolute path (symbolic links resolved as far as the path exists). */
  readonly absolute: string;
  /** Relative to the workspace root, with "/" separators; "." for the root itself. */
  readonly relative: string;
  /** Real absolute path of the workspace root. */
  readonly root: string;
};

const ACCEPTED = 'Use a path inside the workspace, relative to its root, with "/" between folders (for example "src/index.ts", or "." for the root).';

// Escapes of ".", "/", "\", "%" and NUL, and overlong UTF-8 lead bytes: whatever decodes them later
// could read a different path from the one we checked, so they are refused rather than taken literally.
const ENCODED_PATH_CHARACTER = /%(2e|2f|5c|25|00|c0|c1)/i;
const WINDOWS_DRIVE = /^[A-Za-z]:\//;

/**
 * The folder the workspace tools are confined to. Every path is checked twice: as written (no
 * "..", absolute path or encoded trick may leave the root) and as it really is on disk, through
 * the real path of its nearest existing ancestor, so a symbolic link anywhere along the way — the
 * file itself or a parent directory, for reads and for writes alike — cannot lead outside.
 */
export class WorkspaceRoot {
  readonly path: string;

  constructor(root: string) {
    this.path = path.resolve(root);
  }

  /** Resolves `requested` inside the workspace, or throws a ToolError saying what was wrong. */
  async resolve(requested: string): Promise<WorkspacePath> {
    const written = normalizeSpelling(requested);
    const root = await this.realRoot();
    const lexical = path.resolve(this.path, written);
    // A Windows drive path is relative on POSIX, but the model meant somewhere else entirely.
    if (WINDOWS_DRIVE.test(written) || (!isInside(this.path, lexical) && !isInside(root, lexical))) {
      const reason = isAbsolute(written) ? "is an absolute path outside the workspace" : 'climbs out of the workspace with ".."';
      throw refusal(requested, reason);
    }
    // An absolute path may spell the root as given or as its real path; check the real spelling.
    const underRealRoot = isInside(root, lexical) ? lexical : path.join(root, path.relative(this.path, lexical));
    const absolute = await realPathOfNearestExisting(underRealRoot, requested);
    if (!isInside(root, absolute)) throw refusal(requested, "goes through a symbolic link that points outside the workspace");
    return { absolute, relative: relativeTo(root, absolute), root };
  }

  private async realRoot(): Promise<string> {
    try {
      return await realpath(this.path);
    } catch {
      throw new ToolError(`The workspace root ${this.path} does not exist, so no file can be used; tell the user.`);
    }
  }
}

/** How a path under `root` is shown to the model: relative, "/"-separated, "." for the root. */
export function relativeTo(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join("/") || ".";
}

function normalizeSpelling(requested: string): string {
  if (requested.includes("\0")) throw refusal(requested, "contains a NUL character");
  const encoded = ENCODED_PATH_CHARACTER.exec(requested);
  if (encoded) throw refusal(requested, `contains the percent-encoded sequence "${encoded[0]}"; paths are taken literally, never decoded`);
  // Backslashes are read as separators so a Windows-style "..\\" is checked like "../".
  const written = requested.replaceAll("\\", "/");
  return written.trim() === "" ? "." : written;
}

function isAbsolute(written: string): boolean {
  return path.isAbsolute(written) || WINDOWS_DRIVE.test(written);
}

function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative !== ".." && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
}

async function realPathOfNearestExisting(target: string, requested: string): Promise<string> {
  const missing: string[] = [];
  let existing = target;
  while (!(await exists(existing))) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    missing.unshift(path.basename(existing));
    existing = parent;
  }
  try {
    return path.join(await realpath(existing), ...missing);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw refusal(requested, "goes through a symbolic link whose target does not exist");
    if (code === "ELOOP") throw refusal(requested, "goes through a loop of symbolic links");
    throw error;
  }
}

async function exists(candidate: string): Promise<boolean> {
  try {
    await lstat(candidate);
    return true;
  } catch {
    return false;
  }
}

function refusal(requested: string, reason: string): ToolError {
  return new ToolError(`Path ${JSON.stringify(requested)} was refused: it ${reason}. ${ACCEPTED}`);
}
