import type { Tool } from "../core/tool.js";
import { editFileTool } from "./edit-file.js";
import { listDirTool } from "./list-dir.js";
import { DEFAULT_PROTECTED_PATHS, type ProtectedPaths } from "./protected-paths.js";
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
  /**
   * Places never written (readOnly) or never opened at all (hidden), relative to the root or
   * absolute; a list given replaces that list of DEFAULT_PROTECTED_PATHS (.git read-only, .stepwise hidden).
   */
  protectedPaths?: Partial<ProtectedPaths>;
}

/**
 * The built-in tools over one folder: read_file, list_dir and search, plus write_file and
 * edit_file unless `write` is false. Every path they take is confined to `root`, and the
 * protected places in it are kept from them. There is deliberately no shell tool.
 */
export function workspaceTools(root: string, options: WorkspaceToolsOptions = {}): Tool[] {
  const workspace = new WorkspaceRoot(root, { ...DEFAULT_PROTECTED_PATHS, ...options.protectedPaths });
  const limits = { ...DEFAULT_WORKSPACE_LIMITS, ...options.limits };
  const reading = [readFileTool(workspace, limits), listDirTool(workspace, limits), searchTool(workspace, limits)];
  if (options.write === false) return reading;
  return [...reading, writeFileTool(workspace), editFileTool(workspace, limits)];
}

/** Only the tools that read (what a planner gets): read_file, list_dir and search. */
export function readOnlyWorkspaceTools(root: string, options: Omit<WorkspaceToolsOptions, "write"> = {}): Tool[] {
  return workspaceTools(root, { ...options, write: false });
}
