import { statSync } from "node:fs";
import { resolve } from "node:path";
import { approvalPolicy, approvesPlans, parseApprovalMode, type ApprovalMode } from "./approval-mode.js";
import { RunInputError } from "./run-input-error.js";
import type { StrategyContext } from "./strategies.js";

/** How a run was started, kept with it so that a resume (in any process) rebuilds the same session. */
export type RunSettings = {
  /** The folder the workspace tools work in (absolute). */
  workspace: string;
  approval: ApprovalMode;
  /**
   * The base URL of the model provider's API the run was started with (never its key; no user,
   * password or query): a resume here or in any other process sends the run's requests there, or
   * refuses when its environment names another endpoint for the provider. Set by `start` from the
   * model spec; absent for models the run layer did not resolve.
   */
  endpoint?: string;
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

/**
 * `signature`: the CLI's mark that the Stepwise home which set these servers did (see the CLI's
 * McpSigner); a process resuming the run starts only servers it can trust. Server lines are kept
 * with their credentials redacted.
 */
export type RunMcpServers = { servers: Record<string, string>; configFile?: string; signature?: string };

const DEFAULT_SETTINGS: RunSettings = { workspace: ".", approval: "none" };

/** The saved settings (or the defaults), with `given` on top; checks what it takes. */
export function mergeSettings(given: Partial<RunSettings>, saved: RunSettings | undefined): RunSettings {
  const base = saved ?? DEFAULT_SETTINGS;
  return {
    ...base,
    workspace: checkWorkspace(given.workspace ?? base.workspace),
    approval: parseApprovalMode(given.approval ?? base.approval),
    ...(given.endpoint !== undefined ? { endpoint: given.endpoint } : {}),
    ...(given.board !== undefined ? { board: given.board } : {}),
    ...(given.maxSteps ? { maxSteps: given.maxSteps } : {}),
    ...(given.contextBudget ? { contextBudget: given.contextBudget } : {}),
    ...mergeMcp(given.mcp, base.mcp),
  };
}

/** What a run's session takes from its settings: which calls and plans wait for the user, and the run's limits. */
export function sessionSettings(settings: RunSettings): Pick<StrategyContext, "permissions" | "approvePlans" | "maxSteps" | "contextBudget"> {
  const permissions = approvalPolicy(settings.approval);
  return {
    ...(permissions ? { permissions } : {}),
    ...(approvesPlans(settings.approval) ? { approvePlans: true } : {}),
    ...(settings.maxSteps ? { maxSteps: settings.maxSteps } : {}),
    ...(settings.contextBudget ? { contextBudget: settings.contextBudget } : {}),
  };
}

/** Servers named again replace the saved ones of that name; a config file given replaces the saved one. */
function mergeMcp(given: RunMcpServers | undefined, saved: RunMcpServers | undefined): { mcp?: RunMcpServers } {
  if (!given) return saved ? { mcp: saved } : {};
  const configFile = given.configFile ?? saved?.configFile;
  // A signature covers what it was made for: the given one stays only if it was made for the merge (checked where it is used).
  return {
    mcp: {
      servers: { ...saved?.servers, ...given.servers },
      ...(configFile !== undefined ? { configFile } : {}),
      ...(given.signature !== undefined ? { signature: given.signature } : {}),
    },
  };
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
