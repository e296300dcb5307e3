import { lstat, stat } from "node:fs/promises";
import { z } from "zod";
import { defineTool, ToolError, type Tool } from "../core/tool.js";
import { fileError } from "./file-errors.js";
import { LIST_DIR_DESCRIPTION } from "./tool-descriptions.js";
import { walkWorkspace } from "./workspace-walk.js";
import type { WorkspaceLimits } from "./workspace-limits.js";
import { relativeTo, type WorkspaceRoot } from "./workspace-root.js";

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
      const folder = await workspace.resolve(path);
      try {
        if (!(await stat(folder.absolute)).isDirectory()) {
          throw new ToolError(`${JSON.stringify(folder.relative)} is a file, not a folder. Call read_file to read it.`);
        }
      } catch (error) {
        throw error instanceof ToolError ? error : fileError(error, folder.relative);
      }
      const lines: string[] = [];
      const skipped: string[] = [];
      let more = false;
      const onSkip = (absolute: string) => skipped.push(`${relativeTo(folder.root, absolute)}/`);
      for await (const entry of walkWorkspace(folder.absolute, { recursive, onSkip })) {
        if (lines.length === limits.maxListEntries) {
          more = true;
          break;
        }
        const shown = relativeTo(folder.root, entry.absolute);
        if (entry.kind === "directory") lines.push(`${shown}/`);
        else if (entry.kind === "symlink") lines.push(`${shown} (symbolic link)`);
        else lines.push(`${shown} (${await sizeOf(entry.absolute)})`);
      }
      if (lines.length === 0 && skipped.length === 0) lines.push(`${JSON.stringify(folder.relative)} is empty.`);
      if (more) {
        lines.push(`[Truncated after ${limits.maxListEntries} entries. List a sub-folder, or list without recursive, to see the rest.]`);
      }
      if (skipped.length > 0) lines.push(`[Not listed: ${skipped.join(", ")}]`);
      return lines.join("\n");
    },
  });
}

async function sizeOf(absolute: string): Promise<string> {
  try {
    return `${(await lstat(absolute)).size} bytes`;
  } catch {
    return "size unknown";
  }
}
