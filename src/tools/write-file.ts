import { mkdir, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool, type Tool } from "../core/tool.js";
import { fileError } from "./file-errors.js";
import { WRITE_FILE_DESCRIPTION } from "./tool-descriptions.js";
import type { WorkspaceRoot } from "./workspace-root.js";

export function writeFileTool(workspace: WorkspaceRoot): Tool {
  return defineTool({
    name: "write_file",
    description: WRITE_FILE_DESCRIPTION,
    parameters: z.object({
      path: z.string().describe("File to write, relative to the workspace root."),
      content: z.string().describe("The file's complete new content."),
    }),
    async execute({ path: requested, content }) {
      const file = await workspace.resolve(requested);
      try {
        const existed = await isFile(file.absolute);
        await mkdir(path.dirname(file.absolute), { recursive: true });
        await writeFile(file.absolute, content, "utf8");
        const bytes = Buffer.byteLength(content, "utf8");
        return `Wrote ${bytes} bytes to ${file.relative} (${existed ? "replaced its previous content" : "new file"}).`;
      } catch (error) {
        throw fileError(error, file.relative);
      }
    },
  });
}

async function isFile(absolute: string): Promise<boolean> {
  try {
    return (await stat(absolute)).isFile();
  } catch {
    return false;
  }
}
