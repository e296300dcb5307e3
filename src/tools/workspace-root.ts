import type { Stats } from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import path from "node:path";
import { boundedQuote } from "../core/bounded-quote.js";
import { ToolError } from "../core/tool.js";
import { fileError } from "./file-errors.js";
import { HeldFolder, MovedError } from "./held-folder.js";
import { DEFAULT_PROTECTED_PATHS, Protection, type ProtectedPaths } from "./protected-paths.js";

/**
 * A path the workspace accepted, found by a walk from the root that followed no link out of it.
 * `folder` (the target itself when it is a folder, else the folder holding it) stays open until
 * `close()`; the tools use the target only through it.
 */
export type Located = {
  /** Relative to the workspace root, with "/" separators; "." for the root itself. */
  readonly relative: string;
  readonly folder: HeldFolder;
  /** The target's name in `folder`; undefined when the target is `folder` itself. */
  readonly name: string | undefined;
  /** What is there now (a link is never reported: the walk follows links that stay inside). */
  readonly kind: "file" | "folder" | "missing" | "other";
  readonly stats: Stats | undefined;
  /** The protected list as resolved for this walk, for tools that go on to list or search below it. */
  readonly protection: Protection;
  close(): Promise<void>;
};

/** How a walk uses its target: "write" creates missing folders on the way; "edit" changes a file that exists. */
export type Purpose = "read" | "edit" | "write";

const ACCEPTED = 'Use a path inside the workspace, relative to its root, with "/" between folders (for example "src/index.ts", or "." for the root).';

// Escapes of ".", "/", "\", "%" and NUL, and overlong UTF-8 lead bytes: whatever decodes them later
// could read a different path from the one we checked, so they are refused rather than taken literally.
const ENCODED_PATH_CHARACTER = /%(2e|2f|5c|25|00|c0|c1)/i;
const WINDOWS_DRIVE = /^[A-Za-z]:\//;
/**
 * Linux's PATH_MAX. A walk name by name is not held to it by the kernel, so without this a write
 * could create folders thousands deep.
 */
const MAX_PATH_CHARS = 4_096;
/** As the kernel's limit: more links than this on one path is a loop. */
const MAX_LINKS = 40;
/** How often one step is retried when what is there changes under it (a swap in progress). */
const MAX_RETRIES = 8;

type Step = { name: string; fromLink: boolean };

/**
 * The folder the workspace tools are confined to. A path is checked as written (no "..", absolute
 * path or encoded trick may leave the root), then walked one name at a time from a descriptor of
 * the root, each name opened through the folder before it without following links (HeldFolder).
 * A link found on the way is read and its target walked the same way, so links that stay inside
 * work and one that points out, or is swapped in while the walk runs, is refused: no path string
 * that was checked is ever opened again. Protected places (.git, the run store) are refused by
 * what is really there, not by how the path was spelled.
 */
export class WorkspaceRoot {
  readonly path: string;
  readonly #protected: ProtectedPaths;

  constructor(root: string, protectedPaths: ProtectedPaths = DEFAULT_PROTECTED_PATHS) {
    this.path = path.resolve(root);
    this.#protected = protectedPaths;
  }

  /** Walks to `requested` for `purpose`, or throws a ToolError saying what was wrong. */
  async locate(requested: string, purpose: Purpose): Promise<Located> {
    const written = normalizeSpelling(requested);
    const root = await this.realRoot();
    const lexical = path.resolve(this.path, written);
    // A Windows drive path is relative on POSIX, but the model meant somewhere else entirely.
    if (WINDOWS_DRIVE.test(written) || (!isInside(this.path, lexical) && !isInside(root, lexical))) {
      const reason = isAbsolute(written) ? "is an absolute path outside the workspace" : 'climbs out of the workspace with ".."';
      throw refusal(requested, reason);
    }
    // An absolute path may spell the root as given or as its real path.
    const underRoot = isInside(root, lexical) ? path.relative(root, lexical) : path.relative(this.path, lexical);
    const protection = await Protection.resolve(this.#protected, root);
    const stack = [await HeldFolder.openRoot(root)];
    try {
      return await this.#walk(requested, purpose, stack, steps(underRoot, false), protection);
    } catch (error) {
      await Promise.all(stack.map((folder) => folder.close()));
      if (error instanceof ToolError) throw error;
      if (error instanceof MovedError) throw refusal(requested, `changed while it was being opened (${error.message})`);
      throw fileError(error, written);
    }
  }

  async #walk(requested: string, purpose: Purpose, stack: HeldFolder[], pending: Step[], protection: Protection): Promise<Located> {
    const root = (stack[0] as HeldFolder).root;
    let links = 0;
    let retries = 0;
    const done = async (kind: Located["kind"], name: string | undefined, stats: Stats | undefined): Promise<Located> => {
      const folder = stack.pop() as HeldFolder;
      await Promise.all(stack.splice(0).map((parent) => parent.close()));
      const relative = name === undefined ? folder.relative || "." : folder.childRelative(name);
      return { relative, folder, name, kind, stats, protection, close: () => folder.close() };
    };
    for (;;) {
      const step = pending.shift();
      const top = stack.at(-1) as HeldFolder;
      if (step === undefined) return done("folder", undefined, top.stats);
      if (step.name === ".") continue;
      if (step.name === "..") {
        // Only a link's target gets here (the spelling was normalized); the stack is where the walk really is.
        if (stack.length === 1) throw refusal(requested, "goes through a symbolic link that points outside the workspace");
        await (stack.pop() as HeldFolder).close();
        continue;
      }
      const relative = top.childRelative(step.name);
      const stats = await top.look(step.name);
      const guarded = protection.refuses(relative, stats, purpose === "read" ? "read" : "write");
      if (guarded !== undefined) throw protectedRefusal(requested, guarded, protection.isHidden(guarded));
      const last = pending.length === 0;
      if (stats === undefined) {
        if (step.fromLink) throw refusal(requested, "goes through a symbolic link whose target does not exist");
        if (last) return done("missing", step.name, undefined);
        if (purpose !== "write") throw fileError(Object.assign(new Error("missing"), { code: "ENOENT" }), requested);
        await top.makeFolder(step.name);
        pending.unshift(step);
        continue;
      }
      if (stats.isSymbolicLink()) {
        if (++links > MAX_LINKS) throw refusal(requested, "goes through a loop of symbolic links");
        const target = await readLinkOrRetry(top, step.name);
        if (target === undefined) {
          if (++retries > MAX_RETRIES) throw refusal(requested, "kept changing while it was being opened");
          pending.unshift(step);
          continue;
        }
        const intended = path.resolve(root, top.relative, target);
        if (!isInside(root, intended)) throw refusal(requested, await outsideReason(intended));
        if (path.isAbsolute(target)) await Promise.all(stack.splice(1).map((folder) => folder.close()));
        pending.unshift(...steps(path.isAbsolute(target) ? path.relative(root, intended) : target, true));
        continue;
      }
      if (stats.isDirectory()) {
        let folder: HeldFolder;
        try {
          folder = await top.openFolder(step.name);
        } catch (error) {
          // Swapped for a link or a file between the look and the open: look again.
          const code = (error as NodeJS.ErrnoException).code;
          if ((code === "ENOTDIR" || code === "ELOOP" || error instanceof MovedError) && ++retries <= MAX_RETRIES) {
            pending.unshift(step);
            continue;
          }
          throw error;
        }
        stack.push(folder);
        continue;
      }
      if (!last) throw fileError(Object.assign(new Error("not a folder"), { code: "ENOTDIR" }), requested);
      return done(stats.isFile() ? "file" : "other", step.name, stats);
    }
  }

  private async realRoot(): Promise<string> {
    try {
      return await realpath(this.path);
    } catch {
      throw new ToolError(`The workspace root ${this.path} does not exist, so no file can be used; tell the user.`);
    }
  }
}

function steps(relative: string, fromLink: boolean): Step[] {
  return relative
    .split(path.sep)
    .filter((name) => name !== "")
    .map((name) => ({ name, fromLink }));
}

async function readLinkOrRetry(folder: HeldFolder, name: string): Promise<string | undefined> {
  try {
    return await folder.readLink(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EINVAL" || code === "ENOENT") return undefined; // no longer a link: look again
    throw error;
  }
}

/** Why a link whose target lies outside is refused; only the wording depends on whether the target exists. */
async function outsideReason(target: string): Promise<string> {
  const exists = await lstat(target).then(
    () => true,
    () => false,
  );
  return exists ? "goes through a symbolic link that points outside the workspace" : "goes through a symbolic link whose target does not exist";
}

function normalizeSpelling(requested: string): string {
  if (requested.length > MAX_PATH_CHARS) throw fileError(Object.assign(new Error("too long"), { code: "ENAMETOOLONG" }), requested);
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

function refusal(requested: string, reason: string): ToolError {
  return new ToolError(`Path ${boundedQuote(requested)} was refused: it ${reason}. ${ACCEPTED}`);
}

function protectedRefusal(requested: string, place: string, hidden: boolean): ToolError {
  const what = hidden
    ? `is in ${JSON.stringify(place)}, which holds the run store: the workspace tools never open, list or change it`
    : `is in ${JSON.stringify(place)}, which the workspace tools may read but never change`;
  return new ToolError(`Path ${boundedQuote(requested)} was refused: it ${what}. Use a path outside it.`);
}
