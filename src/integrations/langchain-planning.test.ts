import { fakeModel } from "@langchain/core/testing";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { AIMessage, createAgent, HumanMessage, tool, type BaseMessage } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../core/events.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { todoList } from "../planning/todos/todo-list.js";
import { contextFolding } from "../planning/folding/context-folding.js";
import { langChainPlanning } from "./langchain-planning.js";

const PLAN = {
  name: "Report",
  description: "Write the report",
  expected_outcome: "report.md exists",
  subtasks: [
    { name: "Gather", description: "Read the notes", expected_outcome: "facts" },
    { name: "Write", description: "Write report.md", expected_outcome: "a report" },
  ],
};

const lookup = tool(({ q }: { q: string }) => `found ${q}`, {
  name: "lookup",
  description: "Look something up.",
  schema: z.object({ q: z.string() }),
});

function textOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : message.text;
}

/** LangChain's own fake chat model, answering from a queue and recording what each call received. */
function scripted(responses: AIMessage[]) {
  const model = fakeModel();
  let bound: string[] = [];
  const bindTools = model.bindTools.bind(model);
  model.bindTools = (tools) => {
    bound = tools.map((t) => convertToOpenAITool(t as Parameters<typeof convertToOpenAITool>[0]).function.name);
    return bindTools(tools);
  };
  const requests: BaseMessage[][] = [];
  for (const response of responses) {
    model.respond((messages) => {
      requests.push([...messages]);
      return response;
    });
  }
  return { model, requests, boundTools: () => bound };
}

function call(name: string, args: Record<string, unknown>, id: string) {
  return { name, args, id, type: "tool_call" as const };
}

describe("langChainPlanning", () => {
  it("binds the notebook's tools, appends its hint at the tail of every request and stores none of it", async () => {
    const notebook = new PlanNotebook();
    const events: AgentEvent[] = [];
    const { model, requests, boundTools } = scripted([
      new AIMessage({ content: "", tool_calls: [call("create_plan", PLAN, "c1")] }),
      new AIMessage({ content: "", tool_calls: [call("lookup", { q: "notes" }, "c2")] }),
      new AIMessage("Done."),
    ]);
    const agent = createAgent({ model, tools: [lookup], middleware: langChainPlanning([notebook], { onEvent: (e) => events.push(e) }) });
    const result = await agent.invoke({ messages: [new HumanMessage("Write the report")] });

    expect(boundTools()).toEqual(expect.arrayContaining(["lookup", "create_plan", "finish_subtask", "revise_current_plan", "view_historical_plans"]));
    expect(requests).toHaveLength(3);
    for (const request of requests) expect(textOf(request.at(-1)!)).toMatch(/^<system-hint>/);
    // After create_plan the hint names the plan's first subtask.
    expect(textOf(requests[1]!.at(-1)!)).toContain("Gather");
    const stored = (result.messages as BaseMessage[]).map(textOf);
    expect(stored.some((text) => text.includes("<system-hint>"))).toBe(false);
    expect(notebook.currentPlan?.name).toBe("Report");
    expect(events.some((e) => e.type === "plan-updated")).toBe(true);
  });

  it("refuses parallel write_todos calls with the same error result the Stepwise agent gives, and runs the other calls", async () => {
    const todos = todoList();
    const { model, requests } = scripted([
      new AIMessage({
        content: "",
        tool_calls: [
          call("write_todos", { todos: [{ content: "a", status: "pending" }] }, "w1"),
          call("write_todos", { todos: [{ content: "b", status: "pending" }] }, "w2"),
          call("lookup", { q: "x" }, "l1"),
        ],
      }),
      new AIMessage({ content: "", tool_calls: [call("write_todos", { todos: [{ content: "a", status: "in_progress" }] }, "w3")] }),
      new AIMessage("Done."),
    ]);
    const agent = createAgent({ model, tools: [lookup], middleware: langChainPlanning([todos]) });
    const result = await agent.invoke({ messages: [new HumanMessage("Do it")] });

    const toolMessages = (result.messages as BaseMessage[]).filter((m) => m.getType() === "tool") as unknown as {
      tool_call_id: string;
      content: string;
      status?: string;
    }[];
    const byId = new Map(toolMessages.map((m) => [m.tool_call_id, m]));
    expect(byId.get("w1")?.status).toBe("error");
    expect(byId.get("w1")?.content).toMatch(/^Not applied: this turn called write_todos 2 times/);
    expect(byId.get("w2")?.content).toBe(byId.get("w1")?.content);
    expect(byId.get("l1")?.content).toBe("found x");
    expect(toolMessages.filter((m) => m.tool_call_id === "w1")).toHaveLength(1); // refused, never run as well
    expect(todos.todos).toEqual([{ content: "a", status: "in_progress" }]);
    // The list is recited at the tail once it exists, and never stored.
    expect(textOf(requests[2]!.at(-1)!)).toMatch(/in_progress\W+#1 a\b/);
    expect((result.messages as BaseMessage[]).filter((m) => m.getType() === "human")).toHaveLength(1);
  });

  it("answers bad arguments to a plugin tool with Stepwise's error naming the argument", async () => {
    const notebook = new PlanNotebook();
    const { model } = scripted([
      new AIMessage({ content: "", tool_calls: [call("finish_subtask", { subtask_idx: "first" }, "f1")] }),
      new AIMessage("Giving up."),
    ]);
    const agent = createAgent({ model, middleware: langChainPlanning([notebook]) });
    const result = await agent.invoke({ messages: [new HumanMessage("Go")] });
    const reply = (result.messages as BaseMessage[]).find((m) => m.getType() === "tool") as unknown as { content: string; status: string };
    expect(reply.status).toBe("error");
    expect(reply.content).toContain("subtask_idx");
  });

  it("lets context folding replace the conversation in the graph's state", async () => {
    const folding = contextFolding({ budgetTokens: 200, keepRecentTurns: 1 });
    const big = "x".repeat(2_000);
    const noisy = tool(() => big, { name: "noisy", description: "Returns a lot.", schema: z.object({}) });
    const turns = [0, 1, 2, 3].map((i) => new AIMessage({ content: "", tool_calls: [call("noisy", {}, `n${i}`)] }));
    const { model, requests } = scripted([...turns, new AIMessage("Done.")]);
    const agent = createAgent({ model, tools: [noisy], middleware: langChainPlanning([folding]) });
    const result = await agent.invoke({ messages: [new HumanMessage("Go")] });
    const lastRequest = requests.at(-1)!.map(textOf).join("\n");
    expect(lastRequest.split(big).length - 1).toBeLessThan(4);
    expect((result.messages as BaseMessage[]).map(textOf).join("\n").split(big).length - 1).toBeLessThan(4);
  });
});
