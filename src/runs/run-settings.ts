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
};

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
