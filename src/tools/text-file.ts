import { readFile, stat } from "node:fs/promises";
import { ToolError } from "../core/tool.js";
import { fileError } from "./file-errors.js";
import type { WorkspacePath } from "./workspace-root.js";

const BINARY_SNIFF_BYTES = 8_000;

/** Reads a workspace file as UTF-8 text, refusing folders, binary files and files over `maxBytes`. */
export async function readTextFile(file: WorkspacePath, maxBytes: number): Promise<string> {
  const where = JSON.stringify(file.relative);
  let size: number;
  try {
    const info = await stat(file.absolute);
    if (info.isDirectory()) throw Object.assign(new Error("is a directory"), { code: "EISDIR" });
    size = info.size;
  } catch (error) {
    throw fileError(error, file.relative);
  }
  if (size > maxBytes) {
    throw new ToolError(`${where} is ${size} bytes, over the ${maxBytes}-byte limit for opening a file. Use search to find the lines you need.`);
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(file.absolute);
  } catch (error) {
    throw fileError(error, file.relative);
  }
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
    throw new ToolError(`${where} is a binary file; only text files can be read or edited.`);
  }
  return bytes.toString("utf8");
}
