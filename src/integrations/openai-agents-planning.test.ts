import { Agent, run, tool, Usage, type AgentInputItem, type Model, type ModelRequest, type ModelResponse } from "@openai/agents";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../core/events.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { todoList } from "../planning/todos/todo-list.js";
import { openAIAgentsPlanning } from "./openai-agents-planning.js";

type Output = ModelResponse["output"];

/** The SDK ships no fake model: this one answers from a script and keeps a copy of every request. */
class ScriptedAgentsModel implements Model {
  readonly requests: ModelRequest[] = [];
  #turn = 0;
  constructor(private readonly turns: Output[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const { signal: _signal, ...copy } = request;
    this.requests.push(structuredClone(copy) as ModelRequest);
    const output = this.turns[this.#turn++];
    if (!output) throw new Error(`ScriptedAgentsModel: no turn ${this.#turn}`);
    return { usage: new Usage(), output: structuredClone(output) };
  }

  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

const functionCall = (name: string, args: unknown, callId: string) =>
  ({ type: "function_call", callId, name, arguments: JSON.stringify(args), status: "completed" }) as const;
const answer = (text: string): Output[number] => ({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] });

const PLAN = {
  name: "Report",
  description: "Write the report",
  expected_outcome: "report.md exists",
  subtasks: [
    { name: "Gather", description: "Read the notes", expected_outcome: "facts" },
    { name: "Write", description: "Write report.md", expected_outcome: "a report" },
  ],
};

const lookup = tool({ name: "lookup", description: "Look something up.", parameters: z.object({ q: z.string() }), execute: ({ q }) => `found ${q}` });

function lastText(input: string | AgentInputItem[]): string {
  const last = Array.isArray(input) ? input.at(-1) : undefined;
  return last && "content" in last && typeof last.content === "string" ? last.content : "";
}

function historyText(history: AgentInputItem[]): string {
  return JSON.stringify(history);
}

describe("openAIAgentsPlanning", () => {
  it("gives the agent the notebook's tools and its hint at the tail of every model call, never stored", async () => {
    const notebook = new PlanNotebook();
    const events: AgentEvent[] = [];
    const planning = openAIAgentsPlanning([notebook], { onEvent: (e) => events.push(e) });
    const model = new ScriptedAgentsModel([
      [functionCall("create_plan", PLAN, "c1")],
      [functionCall("lookup", { q: "notes" }, "c2")],
      [answer("Done.")],
    ]);
    const agent = new Agent({ name: "writer", instructions: "Be brief.", model: planning.model(model), tools: [lookup, ...planning.tools] });
    const result = await run(agent, "Write the report", { callModelInputFilter: planning.callModelInputFilter });

    expect(result.finalOutput).toBe("Done.");
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["lookup", "create_plan", "finish_subtask", "view_subtasks"]));
    expect(model.requests).toHaveLength(3);
    for (const request of model.requests) expect(lastText(request.input)).toMatch(/^<system-hint>/);
    expect(lastText(model.requests[1]!.input)).toContain("Gather");
    expect(historyText(result.history)).not.toContain("<system-hint>");
    expect(notebook.currentPlan?.name).toBe("Report");
    expect(events.some((e) => e.type === "plan-updated")).toBe(true);
  });

  it("answers parallel write_todos calls with the Stepwise refusal instead of running them", async () => {
    const todos = todoList();
    const planning = openAIAgentsPlanning([todos]);
    const model = new ScriptedAgentsModel([
      [
        functionCall("write_todos", { todos: [{ content: "a", status: "pending" }] }, "w1"),
        functionCall("write_todos", { todos: [{ content: "b", status: "pending" }] }, "w2"),
      ],
      [functionCall("write_todos", { todos: [{ content: "a", status: "in_progress" }] }, "w3")],
      [answer("Done.")],
    ]);
    const agent = new Agent({ name: "worker", model: planning.model(model), tools: planning.tools });
    const result = await run(agent, "Do it", { callModelInputFilter: planning.callModelInputFilter });

    const outputs = result.history.flatMap((item) => ("type" in item && item.type === "function_call_result" ? [item] : []));
    const text = (callId: string) => JSON.stringify(outputs.find((o) => o.callId === callId)?.output);
    expect(text("w1")).toContain("Not applied: this turn called write_todos 2 times");
    expect(text("w2")).toBe(text("w1"));
    expect(todos.todos).toEqual([{ content: "a", status: "in_progress" }]);
    expect(lastText(model.requests[2]!.input)).toMatch(/in_progress\W+#1 a\b/);
  });

  it("answers bad arguments with Stepwise's error naming the argument", async () => {
    const planning = openAIAgentsPlanning([new PlanNotebook()]);
    const model = new ScriptedAgentsModel([[functionCall("finish_subtask", { subtask_idx: "first" }, "f1")], [answer("Giving up.")]]);
    const agent = new Agent({ name: "a", model: planning.model(model), tools: planning.tools });
    const result = await run(agent, "Go", { callModelInputFilter: planning.callModelInputFilter });
    const output = result.history.find((item) => "type" in item && item.type === "function_call_result");
    expect(JSON.stringify(output)).toContain("subtask_idx");
  });
});
