import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The built package is what users import: `npm test` builds first (pretest), so this checks dist/.
// The path is a variable so type-checking does not need a build; the types come from the sources.
const distEntry = new URL("../dist/index.js", import.meta.url).href;
const root = (await import(distEntry)) as typeof import("../src/index.js");

describe("package root (dist/index.js): DESIGN.md's public contract", () => {
  it("exports the contract's runtime names", () => {
    for (const name of ["Agent", "defineTool", "scriptedModel", "PlanNotebook", "TaskBoard", "todoList"]) {
      expect(root, name).toHaveProperty(name);
    }
  });

  it("runs an agent from the built code", async () => {
    const agent = new root.Agent({ model: root.scriptedModel(["hello from dist"]) });
    expect(await agent.run("hi")).toMatchObject({ text: "hello from dist", steps: 1, stopReason: "final" });
    expect(agent.memory).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "hello from dist" },
    ]);
  });

  it("names the model-facing tools as the reference systems do", async () => {
    const notebook = new root.PlanNotebook({ maxSubtasks: 5 });
    expect(notebook.tools().map((t) => t.name)).toEqual([
      "create_plan",
      "view_subtasks",
      "update_subtask_state",
      "finish_subtask",
      "revise_current_plan",
      "finish_plan",
      "view_historical_plans",
      "recover_historical_plan",
    ]);
    expect(new root.TaskBoard().tools().map((t) => t.name)).toEqual(["TaskCreate", "TaskGet", "TaskList", "TaskUpdate"]);
    const todos = root.todoList({ recite: true, checkTransitions: false });
    expect(todos.tools?.().map((t) => t.name)).toEqual(["write_todos"]);
    expect(todos.todos).toEqual([]);
  });

  it("gives plans, tasks and the hint the contract's shapes", async () => {
    const notebook = new root.PlanNotebook();
    expect(notebook.currentPlan).toBeNull();
    expect(notebook.hint()).toMatch(/^<system-hint>[\s\S]+<\/system-hint>$/);
    const create = notebook.tools().find((t) => t.name === "create_plan");
    await create?.invoke({
      name: "Ship",
      description: "Ship it",
      expected_outcome: "Shipped",
      subtasks: [{ name: "Build", description: "Build it", expected_outcome: "Built" }],
    });
    const plan = notebook.currentPlan;
    expect(plan).toMatchObject({ name: "Ship", description: "Ship it", expectedOutcome: "Shipped", state: "todo", outcome: null, finishedAt: null });
    expect(typeof plan?.id).toBe("string");
    expect(typeof plan?.createdAt).toBe("string");
    expect(plan?.subtasks[0]).toMatchObject({ name: "Build", description: "Build it", expectedOutcome: "Built", state: "todo", outcome: null });
    expect(plan?.toMarkdown()).toContain("# Ship\n**Description**: Ship it\n**Expected Outcome**: Shipped\n**State**: todo\n**Created At**: ");
    expect(plan?.toMarkdown()).toContain("## Subtasks\n- [ ] Build");

    const board = new root.TaskBoard({ agentName: "worker" });
    await board.tools()[0]?.invoke({ subject: "First", description: "the first" });
    const [task] = await board.list();
    expect(Object.keys(task ?? {}).sort()).toEqual(
      ["blockedBy", "blocks", "createdAt", "description", "id", "metadata", "owner", "state", "subject"].sort(),
    );
    expect(task).toMatchObject({ id: "1", subject: "First", state: "pending", owner: null, blocks: [], blockedBy: [], metadata: {} });
  });
});

// A project of a user's, in a temporary folder, that installs this package (a link to the repository,
// whose package.json and built dist/ it then sees as an install from npm or a git URL would).
function userProject(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-user-"));
  projects.push(dir);
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(REPO, join(dir, "node_modules", "stepwise"), "dir");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
const REPO = fileURLToPath(new URL("..", import.meta.url));
const TSC = join(REPO, "node_modules", "typescript", "bin", "tsc");
const projects: string[] = [];
afterAll(() => projects.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const run = (file: string, args: string[], cwd: string) => spawnSync(process.execPath, [file, ...args], { cwd, encoding: "utf8" });

describe("subpath exports", () => {
  it("each subpath loads on its own, and a name it shares with the root or another subpath is the very same object", () => {
    const subpaths = ["planning", "testing", "sqlite", "postgres", "openai", "anthropic", "models", "mcp", "otel", "runs", "viewer", "eval"];
    const dir = userProject({
      "check.mjs": [
        'import * as root from "stepwise";',
        ...subpaths.map((s, i) => `import * as sub${i} from "stepwise/${s}";`),
        `const subs = { ${subpaths.map((s, i) => `${JSON.stringify(s)}: sub${i}`).join(", ")} };`,
        "const seen = new Map(Object.entries(root));",
        "const report = {};",
        "for (const [name, mod] of Object.entries(subs)) {",
        "  const names = Object.keys(mod);",
        "  report[name] = { names, notShared: names.filter((k) => seen.has(k) && seen.get(k) !== mod[k]) };",
        "  for (const k of names) if (!seen.has(k)) seen.set(k, mod[k]);",
        "}",
        "console.log(JSON.stringify(report));",
      ].join("\n"),
    });
    const result = run("check.mjs", [], dir);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as Record<string, { names: string[]; notShared: string[] }>;
    expect(report["planning"]?.names).toEqual(
      expect.arrayContaining(["PlanNotebook", "TaskBoard", "todoList", "contextFolding", "PlanTool", "PlanAndExecute", "Rewoo", "LLMCompiler", "WORKFLOW_STATE_VERSION"]),
    );
        expect(report["sqlite"]?.names.sort()).toEqual(["SqlitePlanStore", "SqliteRunStore", "SqliteTaskStore"]);
    expect(report["postgres"]?.names.sort()).toEqual(["CLAIMABLE_CHANNEL", "PostgresPlanStore", "PostgresRunStore", "PostgresTaskStore", "RUNS_CHANNEL"]);
    expect(report["openai"]?.names).toEqual(["openAICompatibleModel"]);
    expect(report["anthropic"]?.names).toEqual(["anthropicModel"]);
    expect(report["models"]?.names).toEqual(expect.arrayContaining(["openAICompatibleModel", "anthropicModel", "resolveModel", "ModelError"]));
    expect(report["mcp"]?.names).toEqual(expect.arrayContaining(["createMcpServer", "serveMcpStdio", "startMcpHttpServer", "mcpTools"]));
    expect(report["testing"]?.names.sort()).toEqual(["describePlanStore", "describeRunStore", "describeTaskStore", "reactiveModel", "scriptedModel"]);
    expect(report["otel"]?.names).toEqual(["openTelemetry"]);
    expect(report["runs"]?.names).toEqual(expect.arrayContaining(["openRuns", "workRuns", "openStores", "RunBusyError", "DecisionsError"]));
    expect(report["viewer"]?.names).toEqual(["startViewer"]);
    expect(report["eval"]?.names).toEqual(expect.arrayContaining(["runEval", "loadSuite", "runCheck", "summarize", "wilsonInterval", "BUILTIN_SUITE"]));
    for (const name of subpaths) expect(report[name]?.notShared, name).toEqual([]);
  });

  it("the root is the core: stores, providers, integrations and surfaces are not on it", () => {
    for (const name of ["SqliteRunStore", "SqliteTaskStore", "PostgresTaskStore", "openAICompatibleModel", "anthropicModel", "resolveModel", "mcpTools", "createMcpServer", "openTelemetry", "openRuns", "startViewer", "runEval", "describePlanStore", "describeTaskStore", "describeRunStore"]) {
      expect(root, name).not.toHaveProperty(name);
    }
    for (const name of ["ModelError", "workspaceTools", "MemoryTaskStore", "MemoryPlanStore", "runWorkerPool", "estimateCostUsd"]) expect(root, name).toHaveProperty(name);
  });
});

describe("CommonJS users", () => {
  it("a .cts file that imports stepwise type-checks with tsc and runs with require()", () => {
    const dir = userProject({
      "main.cts": [
        'import { Agent, scriptedModel } from "stepwise";',
        'import { reactiveModel } from "stepwise/testing";',
        "const agent = new Agent({ model: scriptedModel([\"hello from CommonJS\"]) });",
        'agent.run("hi").then((result) => console.log(result.text, typeof reactiveModel, typeof require));',
      ].join("\n"),
      "tsconfig.json": JSON.stringify({
        // A CommonJS user has Node's types (for `require`); Stepwise's own declarations pull in none.
        compilerOptions: { module: "nodenext", moduleResolution: "nodenext", strict: true, types: ["node"], typeRoots: [join(REPO, "node_modules", "@types")], skipLibCheck: true, outDir: "out" },
        files: ["main.cts"],
      }),
    });
    const checked = run(TSC, ["-p", "."], dir);
    expect(checked.status, checked.stdout).toBe(0);
    const result = run(join("out", "main.cjs"), [], dir);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe("hello from CommonJS function function");
  });

  it("an install from a git URL builds dist/: the prepare script runs the build", () => {
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string>; files: string[] };
    expect(pkg.scripts["prepare"]).toBe("npm run build");
    // eval-suite/ is the eval's built-in task suite, read at run time beside dist/.
    expect(pkg.files).toEqual(["dist", "eval-suite"]);
  });
});

describe("framework subpaths (dist/integrations)", () => {
  it("stepwise/langchain, stepwise/openai-agents and stepwise/ai-sdk load from the build", async () => {
    const langchain = (await import(new URL("../dist/integrations/langchain-planning.js", import.meta.url).href)) as Record<string, unknown>;
    const openaiAgents = (await import(new URL("../dist/integrations/openai-agents-planning.js", import.meta.url).href)) as Record<string, unknown>;
    const aiSdk = (await import(new URL("../dist/integrations/ai-sdk.js", import.meta.url).href)) as Record<string, unknown>;
    expect(typeof langchain["langChainPlanning"]).toBe("function");
    expect(typeof openaiAgents["openAIAgentsPlanning"]).toBe("function");
    expect(Object.keys(aiSdk).sort()).toEqual(["aiSdkModel", "aiSdkPlanning"]);
  });

  it("the AI SDK adapters left the package root and stepwise/models, which load without `ai`", () => {
    expect(root).not.toHaveProperty("aiSdkModel");
    expect(root).not.toHaveProperty("aiSdkPlanning");
  });
});
