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
      if (text === "") return { text: `${file.relative} is empty.`, isError: false, value: "" };
      const lines = text.split("\n");
      if (lines.at(-1) === "") lines.pop();
      if (startLine > lines.length) {
        throw new ToolError(`${file.relative} has ${lines.length} lines, so start_line ${startLine} is past its end. Use a start_line from 1 to ${lines.length}.`);
      }
      // The model reads numbered lines; a workflow step that uses the result gets the lines themselves.
      const shown: string[] = [];
      const plain: string[] = [];
      let used = 0;
      let cutLines = false;
      let next = startLine;
      for (; next <= lines.length; next++) {
        const line = lines[next - 1] as string;
        const number = `${next}\t`;
        const numbered = number + line;
        // Always show at least one line, even a very long one, so reading makes progress.
        if (shown.length > 0 && used + numbered.length > limits.maxReadChars) break;
        const cut = numbered.length > limits.maxReadChars;
        cutLines ||= cut;
        shown.push(cut ? `${numbered.slice(0, limits.maxReadChars)}…` : numbered);
        plain.push(cut ? `${line.slice(0, limits.maxReadChars - number.length)}…` : line);
        used += numbered.length + 1;
      }
      if (next <= lines.length) {
        const notice = `[Truncated: showing lines ${startLine}-${next - 1} of ${lines.length}. Call read_file with start_line ${next} to read on.]`;
        return { text: [...shown, notice].join("\n"), isError: false, value: [...plain, notice].join("\n") };
      }
      // Read to the end: the file's text as it is, its last line break included.
      const value = startLine === 1 && !cutLines ? text : `${plain.join("\n")}${text.endsWith("\n") ? "\n" : ""}`;
      return { text: shown.join("\n"), isError: false, value };
    },
  });
}
