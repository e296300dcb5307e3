import { z } from "zod";
import { boundedQuote } from "../core/bounded-quote.js";
import { defineTool, ToolError, type Tool } from "../core/tool.js";
import { fileError } from "./file-errors.js";
import { readLocatedText } from "./text-file.js";
import { EDIT_FILE_DESCRIPTION } from "./tool-descriptions.js";
import type { WorkspaceLimits } from "./workspace-limits.js";
import type { Located, WorkspaceRoot } from "./workspace-root.js";

const MAX_LINES_NAMED = 10;

export function editFileTool(workspace: WorkspaceRoot, limits: WorkspaceLimits): Tool {
  return defineTool({
    name: "edit_file",
    description: EDIT_FILE_DESCRIPTION,
    parameters: z.object({
      path: z.string().describe("File to change, relative to the workspace root."),
      old_text: z.string().min(1).describe("Exact text to replace, as it appears in the file."),
      new_text: z.string().describe("Text to put in its place."),
      replace_all: z.boolean().default(false).describe("Replace every occurrence instead of requiring exactly one."),
    }),
    async execute({ path, old_text: oldText, new_text: newText, replace_all: replaceAll }) {
      const file = await workspace.locate(path, "edit");
      try {
        return await edit(file, oldText, newText, replaceAll, limits);
      } finally {
        await file.close();
      }
    },
  });
}

async function edit(file: Located, oldText: string, newText: string, replaceAll: boolean, limits: WorkspaceLimits): Promise<string> {
  const { text, stats } = await readLocatedText(file, limits.maxFileBytes);
  const where = boundedQuote(file.relative);
  const offsets = occurrences(text, oldText);
  if (offsets.length === 0) {
    throw new ToolError(
      `old_text was not found in ${where}. It must match the file exactly, including whitespace and line breaks; call read_file and copy the text from there.`,
    );
  }
  if (offsets.length > 1 && !replaceAll) {
    throw new ToolError(
      `old_text occurs ${offsets.length} times in ${where} (at ${lineList(text, offsets)}). Include more of the surrounding text so it matches exactly once, or set replace_all to true to change every occurrence.`,
    );
  }
  if (oldText === newText) throw new ToolError("old_text and new_text are the same, so nothing would change. Send the text you want instead.");
  try {
    // A new file renamed over the old one, keeping its permissions (see HeldFolder.replace).
    await file.folder.replace(file.name as string, text.split(oldText).join(newText), stats.mode & 0o777);
  } catch (error) {
    throw fileError(error, file.relative);
  }
  const count = offsets.length === 1 ? "1 occurrence" : `${offsets.length} occurrences`;
  return `Replaced ${count} in ${file.relative} (at ${lineList(text, offsets)}).`;
}

/** Start offsets of the non-overlapping occurrences of `needle`, the ones a split/join replaces. */
function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) found.push(at);
  return found;
}

function lineList(text: string, offsets: number[]): string {
  const lines = offsets.slice(0, MAX_LINES_NAMED).map((offset) => text.slice(0, offset).split("\n").length);
  if (lines.length === 1) return `line ${lines[0]}`;
  return `lines ${lines.join(", ")}${offsets.length > MAX_LINES_NAMED ? ", …" : ""}`;
}
