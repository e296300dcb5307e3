import { z } from "zod";
import { defineTool, ToolError, type Tool } from "../core/tool.js";
import { readLocatedText } from "./text-file.js";
import { READ_FILE_DESCRIPTION } from "./tool-descriptions.js";
import type { WorkspaceLimits } from "./workspace-limits.js";
import type { WorkspaceRoot } from "./workspace-root.js";

export function readFileTool(workspace: WorkspaceRoot, limits: WorkspaceLimits): Tool {
  return defineTool({
    name: "read_file",
    description: READ_FILE_DESCRIPTION,
    parameters: z.object({
      path: z.string().describe("File to read, relative to the workspace root."),
      start_line: z.number().int().min(1).optional().describe("First line to show (1-based); default 1."),
    }),
    readOnly: true,
    async execute({ path, start_line: startLine = 1 }) {
      const file = await workspace.locate(path, "read");
      let text: string;
      try {
        ({ text } = await readLocatedText(file, limits.maxFileBytes));
      } finally {
        await file.close();
      }
      if (text === "") return `${file.relative} is empty.`;
      const lines = text.split("\n");
      if (lines.at(-1) === "") lines.pop();
      if (startLine > lines.length) {
        throw new ToolError(`${file.relative} has ${lines.length} lines, so start_line ${startLine} is past its end. Use a start_line from 1 to ${lines.length}.`);
      }
      const shown: string[] = [];
      let used = 0;
      let next = startLine;
      for (; next <= lines.length; next++) {
        const numbered = `${next}\t${lines[next - 1]}`;
        // Always show at least one line, even a very long one, so reading makes progress.
        if (shown.length > 0 && used + numbered.length > limits.maxReadChars) break;
        shown.push(numbered.length > limits.maxReadChars ? `${numbered.slice(0, limits.maxReadChars)}…` : numbered);
        used += numbered.length + 1;
      }
      if (next <= lines.length) {
        shown.push(
          `[Truncated: showing lines ${startLine}-${next - 1} of ${lines.length}. Call read_file with start_line ${next} to read on.]`,
        );
      }
      return shown.join("\n");
    },
  });
}
