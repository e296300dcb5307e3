import type { Stats } from "node:fs";
import { boundedQuote } from "../core/bounded-quote.js";
import { ToolError } from "../core/tool.js";
import { MovedError } from "./held-folder.js";

/** Turns a file-system failure into a message the model can act on, naming the path it used. */
export function fileError(error: unknown, relative: string): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = boundedQuote(relative);
  if (error instanceof MovedError) {
    return new ToolError(`${where} ${error.message}, so it was left alone; nothing outside the workspace was touched. Try again.`);
  }
  switch (code) {
    case "ENOENT":
      return new ToolError(`Nothing exists at ${where}. Call list_dir to see which files and folders exist.`);
    case "ENOTDIR":
      return new ToolError(`${where} goes through a file as if it were a folder. Call list_dir to see the layout.`);
    case "EISDIR":
      return new ToolError(`${where} is a folder, not a file. Call list_dir to see what it holds.`);
    case "ENAMETOOLONG":
      // Not echoed: the model would get the overlong name back.
      return new ToolError(`The path (${relative.length} characters) is longer than the file system allows. Use a shorter path.`);
    case "EACCES":
    case "EPERM":
      return new ToolError(`Permission to use ${where} was denied by the operating system.`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}

/**
 * Refuses anything but a regular file where a file is read or written: a FIFO or socket could block
 * a call forever, a device could be anything. A file with more than one hard link may be the same
 * file as one outside the workspace, so it is not read or edited either.
 */
export function notARegularFile(stats: Stats, relative: string): ToolError | undefined {
  const where = boundedQuote(relative);
  if (stats.isDirectory()) return fileError(Object.assign(new Error("folder"), { code: "EISDIR" }), relative) as ToolError;
  if (!stats.isFile()) {
    return new ToolError(`${where} is ${kindOf(stats)}, not a regular file; the workspace tools only open regular files and folders.`);
  }
  if (stats.nlink > 1) {
    return new ToolError(
      `${where} has ${stats.nlink} hard links, so it may be the same file as one outside the workspace; the workspace tools do not read or edit such a file. write_file can replace it with a new file.`,
    );
  }
  return undefined;
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a file";
}
