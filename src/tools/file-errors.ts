import { ToolError } from "../core/tool.js";

/** Turns a file-system failure into a message the model can act on, naming the path it used. */
export function fileError(error: unknown, relative: string): Error {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = JSON.stringify(relative);
  switch (code) {
    case "ENOENT":
      return new ToolError(`Nothing exists at ${where}. Call list_dir to see which files and folders exist.`);
    case "ENOTDIR":
      return new ToolError(`${where} goes through a file as if it were a folder. Call list_dir to see the layout.`);
    case "EISDIR":
      return new ToolError(`${where} is a folder, not a file. Call list_dir to see what it holds.`);
    case "ENAMETOOLONG":
      // Not echoed: the model would get the overlong name back in full.
      return new ToolError(`The path (${relative.length} characters) is longer than the file system allows. Use a shorter path.`);
    case "EACCES":
    case "EPERM":
      return new ToolError(`Permission to use ${where} was denied by the operating system.`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}
