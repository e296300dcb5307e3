// The package root is the core: the runtime, the planning plugins and workflows, the workspace tools and
// the scripted model. It loads no native module, database driver, provider SDK, MCP or telemetry package;
// those come from subpaths (package.json `exports`). This file only re-exports each part's own index.
export * from "./core/index.js";
export * from "./models/index.js";
export * from "./models/scripted.js";
export * from "./planning/index.js";
export * from "./tools/index.js";
