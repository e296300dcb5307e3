import { z } from "zod";
import { defineTool, type Tool } from "../core/tool.js";
import { fileError, notARegularFile } from "./file-errors.js";
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
      const file = await workspace.locate(requested, "write");
      try {
        if (file.name === undefined) throw fileError(Object.assign(new Error("folder"), { code: "EISDIR" }), file.relative);
        // A hard-linked file is fine here: it is replaced by a new file, the shared inode is left alone.
        if (file.kind === "other" && file.stats) throw notARegularFile(file.stats, file.relative);
        try {
          await file.folder.replace(file.name, content, file.stats ? file.stats.mode & 0o777 : undefined);
        } catch (error) {
          throw fileError(error, file.relative);
        }
        const bytes = Buffer.byteLength(content, "utf8");
        return `Wrote ${bytes} bytes to ${file.relative} (${file.kind === "file" ? "replaced its previous content" : "new file"}).`;
      } finally {
        await file.close();
      }
    },
  });
}
