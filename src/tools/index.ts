// The built-in workspace tools, confined to a root folder.
export { workspaceTools, readOnlyWorkspaceTools } from "./workspace-tools.js";
export type { WorkspaceToolsOptions } from "./workspace-tools.js";
export { DEFAULT_WORKSPACE_LIMITS } from "./workspace-limits.js";
export type { WorkspaceLimits } from "./workspace-limits.js";
export { DEFAULT_PROTECTED_PATHS } from "./protected-paths.js";
export type { ProtectedPaths } from "./protected-paths.js";
