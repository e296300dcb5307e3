import type { Tool } from "../core/tool.js";
import { editFileTool } from "./edit-file.js";
import { listDirTool } from "./list-dir.js";
import { readFileTool } from "./read-file.js";
import { searchTool } from "./search.js";
import { DEFAULT_WORKSPACE_LIMITS, type WorkspaceLimits } from "./workspace-limits.js";
import { WorkspaceRoot } from "./workspace-root.js";
import { writeFileTool } from "./write-file.js";

export interface WorkspaceToolsOptions {
  /** Include write_file and edit_file (default true). */
  write?: boolean;
  /** Override some of DEFAULT_WORKSPACE_LIMITS. */
  limits?: Partial<WorkspaceLimits>;
}

/**
 * The built-in tools over one folder: read_file, list_dir and search, plus write_file and
 * edit_file unless `write` is false. Every path they take is confined to `root`. There is
 * deliberately no shell tool.
 */
export function workspaceTools(root: string, options: WorkspaceToolsOptions = {}): Tool[] {
  const workspace = new WorkspaceRoot(root);
  const limits = { ...DEFAULT_WORKSPACE_LIMITS, ...options.limits };
  const reading = [readFileTool(workspace, limits), listDirTool(workspace, limits), searchTool(workspace, limits)];
  if (options.write === false) return reading;
  return [...reading, writeFileTool(workspace), editFileTool(workspace, limits)];
}

/** Only the tools that read (what a planner gets): read_file, list_dir and search. */
export function readOnlyWorkspaceTools(root: string, options: Omit<WorkspaceToolsOptions, "write"> = {}): Tool[] {
  return workspaceTools(root, { ...options, write: false });
}
