import { statSync } from "node:fs";
import { resolve } from "node:path";
import { parseApprovalMode, type ApprovalMode } from "./approval-mode.js";
import { RunInputError } from "./run-input-error.js";

/** How a run was started, kept with it so that a resume (in any process) rebuilds the same session. */
export type RunSettings = {
  /** The folder the workspace tools work in (absolute). */
  workspace: string;
  approval: ApprovalMode;
  /** The task board the run shares (default: its own, named by the run's id). */
  board?: string;
  maxSteps?: number;
  contextBudget?: number;
  /**
   * MCP servers whose tools the run gets: by name, a command line or URL (`stepwise run --mcp`), and
   * a config file in the `{"mcpServers": …}` shape, re-read (it may hold secrets, which are not kept here).
   * The CLI connects them; the run layer only keeps them.
   */
  mcp?: RunMcpServers;
};

export type RunMcpServers = { servers: Record<string, string>; configFile?: string };

const DEFAULT_SETTINGS: RunSettings = { workspace: ".", approval: "none" };

/** The saved settings (or the defaults), with `given` on top; checks what it takes. */
export function mergeSettings(given: Partial<RunSettings>, saved: RunSettings | undefined): RunSettings {
  const base = saved ?? DEFAULT_SETTINGS;
  return {
    ...base,
    workspace: checkWorkspace(given.workspace ?? base.workspace),
    approval: parseApprovalMode(given.approval ?? base.approval),
    ...(given.board !== undefined ? { board: given.board } : {}),
    ...(given.maxSteps ? { maxSteps: given.maxSteps } : {}),
    ...(given.contextBudget ? { contextBudget: given.contextBudget } : {}),
    ...mergeMcp(given.mcp, base.mcp),
  };
}

/** Servers named again replace the saved ones of that name; a config file given replaces the saved one. */
function mergeMcp(given: RunMcpServers | undefined, saved: RunMcpServers | undefined): { mcp?: RunMcpServers } {
  if (!given) return saved ? { mcp: saved } : {};
  const configFile = given.configFile ?? saved?.configFile;
  return { mcp: { servers: { ...saved?.servers, ...given.servers }, ...(configFile !== undefined ? { configFile } : {}) } };
}

function checkWorkspace(path: string): string {
  const root = resolve(path);
  let isDir = false;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    throw new RunInputError(`workspace ${root} does not exist; pass an existing folder as the workspace`);
  }
  if (!isDir) throw new RunInputError(`workspace ${root} is a file; pass a folder as the workspace`);
  return root;
}
