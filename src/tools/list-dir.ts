import { z } from "zod";
import { boundedQuote } from "../core/bounded-quote.js";
import { defineTool, ToolError, type Tool } from "../core/tool.js";
import { fileError } from "./file-errors.js";
import { LIST_DIR_DESCRIPTION } from "./tool-descriptions.js";
import { walkWorkspace } from "./workspace-walk.js";
import type { WorkspaceLimits } from "./workspace-limits.js";
import type { WorkspaceRoot } from "./workspace-root.js";

export function listDirTool(workspace: WorkspaceRoot, limits: WorkspaceLimits): Tool {
  return defineTool({
    name: "list_dir",
    description: LIST_DIR_DESCRIPTION,
    parameters: z.object({
      path: z.string().default(".").describe('Folder to list, relative to the workspace root; "." for the root.'),
      recursive: z.boolean().default(false).describe("Also list everything in sub-folders."),
    }),
    readOnly: true,
    async execute({ path, recursive }) {
      const folder = await workspace.locate(path, "read");
      try {
        if (folder.kind === "missing") throw fileError(Object.assign(new Error("missing"), { code: "ENOENT" }), folder.relative);
        if (folder.name !== undefined) {
          throw new ToolError(`${boundedQuote(folder.relative)} is a file, not a folder. Call read_file to read it.`);
        }
        const lines: string[] = [];
        const skipped: string[] = [];
        let more = false;
        const onSkip = (relative: string) => skipped.push(`${relative}/`);
        for await (const entry of walkWorkspace(folder.folder, { recursive, onSkip, protection: folder.protection })) {
          if (lines.length === limits.maxListEntries) {
            more = true;
            break;
          }
          if (entry.kind === "directory") lines.push(`${entry.relative}/`);
          else if (entry.kind === "symlink") lines.push(`${entry.relative} (symbolic link)`);
          else lines.push(`${entry.relative} (${entry.stats.size} bytes)`);
        }
        if (lines.length === 0 && skipped.length === 0) lines.push(`${boundedQuote(folder.relative)} is empty.`);
        if (more) {
          lines.push(`[Truncated after ${limits.maxListEntries} entries. List a sub-folder, or list without recursive, to see the rest.]`);
        }
        if (skipped.length > 0) lines.push(`[Not listed: ${skipped.join(", ")}]`);
        return lines.join("\n");
      } finally {
        await folder.close();
      }
    },
  });
}
