import type { Stats } from "node:fs";
import { boundedQuote } from "../core/bounded-quote.js";
import { ToolError } from "../core/tool.js";
import { fileError, notARegularFile } from "./file-errors.js";
import type { HeldFolder } from "./held-folder.js";
import type { Located } from "./workspace-root.js";

const BINARY_SNIFF_BYTES = 8_000;

/**
 * Reads the file `name` of an open folder as UTF-8 text, refusing anything but a regular file with
 * one link, binary files and files over `maxBytes`. `relative` is how the model named it.
 */
export async function readTextFile(folder: HeldFolder, name: string, relative: string, maxBytes: number): Promise<{ text: string; stats: Stats }> {
  const where = boundedQuote(relative);
  let opened;
  try {
    opened = await folder.openFile(name);
  } catch (error) {
    throw fileError(error, relative);
  }
  const { handle, stats } = opened;
  try {
    const refused = notARegularFile(stats, relative);
    if (refused) throw refused;
    if (stats.size > maxBytes) {
      throw new ToolError(`${where} is ${stats.size} bytes, over the ${maxBytes}-byte limit for opening a file. Use search to find the lines you need.`);
    }
    let bytes: Buffer;
    try {
      // Never more than the limit, even if the file grows after it was measured.
      const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1);
      let filled = 0;
      for (let read = -1; read !== 0 && filled < buffer.length; filled += read) {
        ({ bytesRead: read } = await handle.read(buffer, filled, buffer.length - filled, filled));
      }
      if (filled > maxBytes) throw new ToolError(`${where} grew past the ${maxBytes}-byte limit for opening a file while it was read. Use search instead.`);
      bytes = buffer.subarray(0, filled);
    } catch (error) {
      throw error instanceof ToolError ? error : fileError(error, relative);
    }
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
      throw new ToolError(`${where} is a binary file; only text files can be read or edited.`);
    }
    return { text: bytes.toString("utf8"), stats };
  } finally {
    await handle.close();
  }
}

/** Reads a located file as text (see readTextFile); a folder, nothing or a FIFO there is an error. */
export async function readLocatedText(file: Located, maxBytes: number): Promise<{ text: string; stats: Stats }> {
  if (file.kind === "missing") throw fileError(Object.assign(new Error("missing"), { code: "ENOENT" }), file.relative);
  if (file.name === undefined) throw fileError(Object.assign(new Error("folder"), { code: "EISDIR" }), file.relative);
  if (file.kind === "other" && file.stats) throw notARegularFile(file.stats, file.relative);
  return readTextFile(file.folder, file.name, file.relative, maxBytes);
}
