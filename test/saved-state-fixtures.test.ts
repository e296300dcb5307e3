import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Agent, contextFolding, PlanNotebook, scriptedModel, TaskBoard, todoList, type AgentState } from "../src/index.js";

// Saved states written by earlier versions: every one must keep loading. Add a fixture whenever a
// saved shape changes; never edit one.
function fixture(name: string): AgentState {
  return JSON.parse(readFileSync(new URL(`./fixtures/saved-states/${name}`, import.meta.url), "utf8")) as AgentState;
}

describe("saved-state fixtures", () => {
  it("v1, an agent with every planning plugin mid-plan: loads and saves back unchanged", async () => {
    const saved = fixture("v1-agent-with-every-plugin.json");
    const notebook = new PlanNotebook();
    const board = new TaskBoard({ agentName: "fixture" });
    const todos = todoList({ ids: true });
    const model = scriptedModel([(req) => `last message: ${req.messages.at(-1)?.content.slice(0, 40)}`]);
    const agent = new Agent({ name: "fixture", model, plugins: [notebook, board, todos, contextFolding()] });
    agent.loadState(saved);

    expect(agent.saveState()).toEqual(saved);
    expect(notebook.currentPlan?.subtasks.map((s) => s.state)).toEqual(["done", "in_progress"]);
    expect((await board.list()).map((t) => [t.id, t.blockedBy])).toEqual([
      ["1", []],
      ["2", ["1"]],
    ]);
    expect(todos.todos).toEqual([
      { content: "Todo one", status: "in_progress" },
      { content: "Todo two", status: "pending" },
    ]);
    // And the agent goes on from it.
    expect((await agent.run("continue")).stopReason).toBe("final");
  });

  it("v1, a notebook saved before subtasks had ids: loads, and its subtasks get ids", () => {
    const notebook = new PlanNotebook();
    const agent = new Agent({ name: "fixture", model: scriptedModel([]), plugins: [notebook] });
    agent.loadState(fixture("v1-notebook-before-subtask-ids.json"));
    const subtasks = notebook.currentPlan?.subtasks ?? [];
    expect(subtasks.map((s) => [s.name, s.state])).toEqual([
      ["First", "done"],
      ["Second", "in_progress"],
    ]);
    expect(subtasks.every((s) => typeof s.id === "string" && s.id.length > 0)).toBe(true);
    expect(notebook.hint()).toContain("call 'finish_subtask' with subtask_idx=1");
  });
});
