import { describe, expect, it } from "vitest";

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

describe("framework subpaths (dist/integrations)", () => {
  it("stepwise/langchain and stepwise/openai-agents load from the build", async () => {
    const langchain = (await import(new URL("../dist/integrations/langchain-planning.js", import.meta.url).href)) as Record<string, unknown>;
    const openaiAgents = (await import(new URL("../dist/integrations/openai-agents-planning.js", import.meta.url).href)) as Record<string, unknown>;
    expect(typeof langchain["langChainPlanning"]).toBe("function");
    expect(typeof openaiAgents["openAIAgentsPlanning"]).toBe("function");
  });
});
