import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Tool } from "../../core/tool.js";
import { workspaceTools, type WorkspaceToolsOptions } from "../workspace-tools.js";

export type TempWorkspace = {
  /** The workspace root. */
  root: string;
  /** A sibling folder outside the workspace, for escape attempts to aim at. */
  outside: string;
  tool(name: string): Tool;
  read(relative: string): string;
  /** Every file below `folder` with its content, to prove nothing changed. */
  snapshot(folder: string): Record<string, string>;
  remove(): void;
};

/** A fresh temporary folder holding a workspace (filled with `files`) and an outside sibling. */
export function tempWorkspace(files: Record<string, string>, options: WorkspaceToolsOptions = {}): TempWorkspace {
  const base = realpathSync(mkdtempSync(path.join(tmpdir(), "stepwise-ws-")));
  const root = path.join(base, "workspace");
  const outside = path.join(base, "outside");
  mkdirSync(root);
  mkdirSync(outside);
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), content);
  }
  const tools = workspaceTools(root, options);
  return {
    root,
    outside,
    tool(name) {
      const found = tools.find((tool) => tool.name === name);
      if (!found) throw new Error(`no tool ${name}`);
      return found;
    },
    read: (relative) => readFileSync(path.join(root, relative), "utf8"),
    snapshot: (folder) => snapshot(folder),
    remove: () => rmSync(base, { recursive: true, force: true }),
  };
}

function snapshot(folder: string, prefix = ""): Record<string, string> {
  const result: Record<string, string> = {};
  for (const name of readdirSync(folder).sort()) {
    const absolute = path.join(folder, name);
    if (statSync(absolute).isDirectory()) Object.assign(result, { [`${prefix}${name}/`]: "" }, snapshot(absolute, `${prefix}${name}/`));
    else result[`${prefix}${name}`] = readFileSync(absolute, "utf8");
  }
  return result;
}
