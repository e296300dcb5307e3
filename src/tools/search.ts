import { stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool, ToolError, type Tool } from "../core/tool.js";
import { fileError } from "./file-errors.js";
import { readTextFile } from "./text-file.js";
import { SEARCH_DESCRIPTION } from "./tool-descriptions.js";
import { walkWorkspace } from "./workspace-walk.js";
import type { WorkspaceLimits } from "./workspace-limits.js";
import { relativeTo, type WorkspacePath, type WorkspaceRoot } from "./workspace-root.js";

const MAX_LINE_CHARS = 200;

export function searchTool(workspace: WorkspaceRoot, limits: WorkspaceLimits): Tool {
  return defineTool({
    name: "search",
    description: SEARCH_DESCRIPTION,
    parameters: z.object({
      pattern: z.string().min(1).describe("Text to look for (a regular expression when regex is true)."),
      path: z.string().default(".").describe("Folder or file to search, relative to the workspace root."),
      regex: z.boolean().default(false),
      ignore_case: z.boolean().default(false),
    }),
    readOnly: true,
    async execute({ pattern, path, regex, ignore_case: ignoreCase }) {
      const matches = lineMatcher(pattern, regex, ignoreCase);
      const scope = await workspace.resolve(path);
      const found: string[] = [];
      let more = false;
      for await (const file of filesIn(scope)) {
        let text: string;
        try {
          text = await readTextFile(file, limits.maxFileBytes);
        } catch {
          continue; // binary, too large or unreadable: not something a text search can answer
        }
        const lines = text.split("\n");
        for (let index = 0; index < lines.length && !more; index++) {
          const line = lines[index] ?? "";
          if (!matches(line)) continue;
          if (found.length === limits.maxSearchResults) more = true;
          else found.push(`${file.relative}:${index + 1}: ${clip(line.trim())}`);
        }
        if (more) break;
      }
      if (found.length === 0) return `No lines match ${JSON.stringify(pattern)} in ${JSON.stringify(scope.relative)}.`;
      if (more) {
        found.push(`[Stopped after ${limits.maxSearchResults} matches. Use a more specific pattern or a narrower path to see the rest.]`);
      }
      return found.join("\n");
    },
  });
}

function lineMatcher(pattern: string, regex: boolean, ignoreCase: boolean): (line: string) => boolean {
  if (!regex) {
    const needle = ignoreCase ? pattern.toLowerCase() : pattern;
    return ignoreCase ? (line) => line.toLowerCase().includes(needle) : (line) => line.includes(needle);
  }
  let expression: RegExp;
  try {
    expression = new RegExp(pattern, ignoreCase ? "i" : "");
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ToolError(`${JSON.stringify(pattern)} is not a valid regular expression (${reason}). Fix it, or set regex to false to search for the text as written.`);
  }
  return (line) => expression.test(line);
}

async function* filesIn(scope: WorkspacePath): AsyncGenerator<WorkspacePath> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(scope.absolute)).isDirectory();
  } catch (error) {
    throw fileError(error, scope.relative);
  }
  if (!isDirectory) {
    yield scope;
    return;
  }
  for await (const entry of walkWorkspace(scope.absolute, { recursive: true })) {
    if (entry.kind === "file") yield { absolute: entry.absolute, relative: relativeTo(scope.root, entry.absolute), root: scope.root };
  }
}

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? `${line.slice(0, MAX_LINE_CHARS)}…` : line;
}
