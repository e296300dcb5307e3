import { fakeModel } from "@langchain/core/testing";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { Command, MemorySaver } from "@langchain/langgraph";
import { AIMessage, createAgent, HumanMessage, humanInTheLoopMiddleware, tool, type AgentMiddleware, type BaseMessage } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../core/events.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { todoList } from "../planning/todos/todo-list.js";
import { FINAL_ANSWER_NOTE } from "../planning/todos/final-answer-guard.js";
import { contextFolding } from "../planning/folding/context-folding.js";
import { langChainPlanning } from "./langchain-planning.js";
import { meetingPoint } from "./test-support/meeting-point.js";

// The todo list recited at the tail of every request: where these tests read each thread's list.
const AT_EVERY_TAIL = { reciteAfterTokens: 0 };

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
function scripted(responses: (AIMessage | ((messages: BaseMessage[]) => AIMessage))[]) {
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
      return typeof response === "function" ? response(messages) : response;
    });
  }
  return { model, requests, boundTools: () => bound };
}

function call(name: string, args: Record<string, unknown>, id: string) {
  return { name, args, id, type: "tool_call" as const };
}

const writeTodos = (contents: string[], id: string) =>
  new AIMessage({ content: "", tool_calls: [call("write_todos", { todos: contents.map((content) => ({ content, status: "pending" })) }, id)] });

/** A turn calling write_todos twice (["a"], then ["b"]), and whatever else is given. */
const parallelWrites = (...others: ReturnType<typeof call>[]) =>
  new AIMessage({
    content: "",
    tool_calls: [
      call("write_todos", { todos: [{ content: "a", status: "pending" }] }, "w1"),
      call("write_todos", { todos: [{ content: "b", status: "pending" }] }, "w2"),
      ...others,
    ],
  });

const recitations = (requests: BaseMessage[][]) => requests.map((request) => request.map(textOf).filter((text) => text.startsWith("<todo-list>")));

describe("langChainPlanning", () => {
  it("binds the notebook's tools, appends its hint at the tail of every request and stores none of it", async () => {
    const events: AgentEvent[] = [];
    const { model, requests, boundTools } = scripted([
      new AIMessage({ content: "", tool_calls: [call("create_plan", PLAN, "c1")] }),
      new AIMessage({ content: "", tool_calls: [call("lookup", { q: "notes" }, "c2")] }),
      new AIMessage("Done."),
    ]);
    const agent = createAgent({ model, tools: [lookup], middleware: [langChainPlanning(() => [new PlanNotebook()], { onEvent: (e) => events.push(e) })] });
    const result = await agent.invoke({ messages: [new HumanMessage("Write the report")] });

    expect(boundTools()).toEqual(expect.arrayContaining(["lookup", "create_plan", "finish_subtask", "revise_current_plan", "view_historical_plans"]));
    expect(requests).toHaveLength(3);
    for (const request of requests) expect(textOf(request.at(-1)!)).toMatch(/^<system-hint>/);
    // After create_plan the hint names the plan's first subtask.
    expect(textOf(requests[1]!.at(-1)!)).toContain("Gather");
    const stored = (result.messages as BaseMessage[]).map(textOf);
    expect(stored.some((text) => text.includes("<system-hint>"))).toBe(false);
    const saved = result.stepwise?.plugins["plan_notebook"] ?? Object.values(result.stepwise?.plugins ?? {})[0];
    expect(JSON.stringify(saved)).toContain('"name":"Report"');
    expect(events.some((e) => e.type === "plan-updated")).toBe(true);
  });

  it("refuses parallel write_todos calls with the same error result the Stepwise agent gives, and runs the other calls", async () => {
    const { model, requests } = scripted([
      parallelWrites(call("lookup", { q: "x" }, "l1")),
      new AIMessage({ content: "", tool_calls: [call("write_todos", { todos: [{ content: "a", status: "in_progress" }] }, "w3")] }),
      new AIMessage("Done."),
    ]);
    const agent = createAgent({ model, tools: [lookup], middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])] });
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
    expect(result.todos).toEqual([{ content: "a", status: "in_progress" }]);
    // The list is recited at the tail once it exists, and never stored.
    expect(textOf(requests[2]!.at(-1)!)).toMatch(/in_progress\W+#1 a\b/);
    expect((result.messages as BaseMessage[]).filter((m) => m.getType() === "human")).toHaveLength(1);
  });

  it("answers bad arguments to a plugin tool with Stepwise's error naming the argument", async () => {
    const { model } = scripted([
      new AIMessage({ content: "", tool_calls: [call("finish_subtask", { subtask_idx: "first" }, "f1")] }),
      new AIMessage("Giving up."),
    ]);
    const agent = createAgent({ model, middleware: [langChainPlanning(() => [new PlanNotebook()])] });
    const result = await agent.invoke({ messages: [new HumanMessage("Go")] });
    const reply = (result.messages as BaseMessage[]).find((m) => m.getType() === "tool") as unknown as { content: string; status: string };
    expect(reply.status).toBe("error");
    expect(reply.content).toContain("subtask_idx");
  });

  it("lets context folding replace the conversation in the graph's state", async () => {
    const big = "x".repeat(2_000);
    const noisy = tool(() => big, { name: "noisy", description: "Returns a lot.", schema: z.object({}) });
    const turns = [0, 1, 2, 3].map((i) => new AIMessage({ content: "", tool_calls: [call("noisy", {}, `n${i}`)] }));
    const { model, requests } = scripted([...turns, new AIMessage("Done.")]);
    const agent = createAgent({ model, tools: [noisy], middleware: [langChainPlanning(() => [contextFolding({ budgetTokens: 200, keepRecentTurns: 1 })])] });
    const result = await agent.invoke({ messages: [new HumanMessage("Go")] });
    const lastRequest = requests.at(-1)!.map(textOf).join("\n");
    expect(lastRequest.split(big).length - 1).toBeLessThan(4);
    expect((result.messages as BaseMessage[]).map(textOf).join("\n").split(big).length - 1).toBeLessThan(4);
  });

  it("refuses plugin objects made once: a function must make each thread's plugins", () => {
    const shared = todoList(AT_EVERY_TAIL);
    expect(() => langChainPlanning([shared] as never)).toThrow(/takes a function that makes the plugins/);
    const reused = langChainPlanning(() => [shared]);
    expect(reused.name).toBe("StepwisePlanning");
    // The blueprint took `shared`; a thread asking for plugins again gets the same object, which is refused.
    return expect(createAgent({ model: scripted([]).model, middleware: [reused] }).invoke({ messages: [new HumanMessage("x")] })).rejects.toThrow(
      /returned the plugin "todos" it had returned before/,
    );
  });
});

describe("langChainPlanning keeps each thread's plan in the graph's state", () => {
  const meet = () => tool(meetingPoint(), { name: "meet", description: "Wait for the other thread.", schema: z.object({}) });

  /** A model that answers each thread from its own conversation: its list, then `meet`, then a final answer. */
  const threadModel = () =>
    scripted(
      Array.from({ length: 12 }, () => (messages: BaseMessage[]) => {
        const ask = textOf(messages.find((m) => m.getType() === "human")!);
        const name = ask.replace("Work on ", "");
        const done = messages.filter((m) => m.getType() === "tool").length;
        if (done === 0) return writeTodos([`${name} first`, `${name} second`], `${name}-w`);
        if (done === 1) return new AIMessage({ content: "", tool_calls: [call("meet", {}, `${name}-m`)] });
        return new AIMessage(`${name} done`);
      }),
    );

  it("two threads interleaved mid-run each see only their own list (the shared-plan leak)", async () => {
    const { model, requests } = threadModel();
    const agent = createAgent({ model, tools: [meet()], middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])], checkpointer: new MemorySaver() });
    const [a, b] = await Promise.all([
      agent.invoke({ messages: [new HumanMessage("Work on alpha")] }, { configurable: { thread_id: "alpha" } }),
      agent.invoke({ messages: [new HumanMessage("Work on beta")] }, { configurable: { thread_id: "beta" } }),
    ]);
    expect(requests).toHaveLength(6);
    for (const [i, recited] of recitations(requests).entries()) {
      const thread = textOf(requests[i]!.find((m) => m.getType() === "human")!).replace("Work on ", "");
      const other = thread === "alpha" ? "beta" : "alpha";
      for (const list of recited) {
        expect(list).toContain(`${thread} first`);
        expect(list).not.toContain(other);
      }
    }
    // Both threads' later requests recited their list: the lists really were in front of the model.
    expect(recitations(requests).filter((r) => r.length > 0)).toHaveLength(4);
    expect(a.todos.map((t) => t.content)).toEqual(["alpha first", "alpha second"]);
    expect(b.todos.map((t) => t.content)).toEqual(["beta first", "beta second"]);
  });

  it("a new thread starts empty, the same thread continues its list, and a restarted process reads it from the checkpoint", async () => {
    const checkpointer = new MemorySaver();
    const first = scripted([writeTodos(["ship it"], "w1"), new AIMessage("Planned.")]);
    const agent = createAgent({ model: first.model, middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])], checkpointer });
    const planned = await agent.invoke({ messages: [new HumanMessage("Plan")] }, { configurable: { thread_id: "t1" } });
    expect(planned.todos).toEqual([{ content: "ship it", status: "pending" }]);
    const state = await agent.graph.getState({ configurable: { thread_id: "t1" } });
    expect((state.values as { todos: unknown }).todos).toEqual([{ content: "ship it", status: "pending" }]);
    // The recitation went to the model, never into the stored history.
    expect(planned.messages.map(textOf).some((text) => text.includes("<todo-list>"))).toBe(false);

    const other = scripted([new AIMessage("Nothing planned here.")]);
    const fresh = createAgent({ model: other.model, middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])], checkpointer });
    const empty = await fresh.invoke({ messages: [new HumanMessage("Hello")] }, { configurable: { thread_id: "t2" } });
    expect(empty.todos).toEqual([]);
    expect(recitations(other.requests)).toEqual([[]]);

    // A new middleware and agent over the same checkpointer: what a restarted process has.
    const later = scripted([new AIMessage("Continuing.")]);
    const restarted = createAgent({ model: later.model, middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])], checkpointer });
    const resumed = await restarted.invoke({ messages: [new HumanMessage("Go on")] }, { configurable: { thread_id: "t1" } });
    expect(recitations(later.requests)[0]).toEqual([expect.stringContaining("#1 ship it")]);
    expect(resumed.todos).toEqual([{ content: "ship it", status: "pending" }]);
  });
});

describe("langChainPlanning in LangChain's loop", () => {
  it("sends the model round again after an empty reply to a finished list, with the note, and drops the empty reply", async () => {
    const { model, requests } = scripted([
      new AIMessage({ content: "", tool_calls: [call("write_todos", { todos: [{ content: "a", status: "completed" }] }, "w1")] }),
      new AIMessage(""),
      new AIMessage("Here is the answer."),
    ]);
    const agent = createAgent({ model, middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])] });
    const result = await agent.invoke({ messages: [new HumanMessage("Do it")] });
    expect(requests).toHaveLength(3);
    expect(textOf(requests[2]!.at(-1)!)).toBe(FINAL_ANSWER_NOTE);
    expect(textOf(result.messages.at(-1)!)).toBe("Here is the answer.");
    expect(result.messages.filter((m) => AIMessage.isInstance(m) && !m.tool_calls?.length && textOf(m) === "")).toEqual([]);
    expect(result.messages.map(textOf)).not.toContain(FINAL_ANSWER_NOTE);
  });

  it("goes back to the model after a turn whose calls were all refused", async () => {
    const { model, requests } = scripted([
      parallelWrites(),
      writeTodos(["a"], "w3"),
      new AIMessage("Done."),
    ]);
    const agent = createAgent({ model, middleware: [langChainPlanning(() => [todoList(AT_EVERY_TAIL)])] });
    const result = await agent.invoke({ messages: [new HumanMessage("Do it")] });
    expect(requests).toHaveLength(3);
    expect(result.todos).toEqual([{ content: "a", status: "pending" }]);
    expect(textOf(result.messages.at(-1)!)).toBe("Done.");
  });

  for (const order of ["planning first", "approval first"] as const) {
    it(`is one middleware beside humanInTheLoopMiddleware (${order}): the approved call runs, the plan is kept`, async () => {
      const { model, requests } = scripted([
        new AIMessage({ content: "", tool_calls: [call("write_todos", { todos: [{ content: "look", status: "in_progress" }] }, "w1"), call("lookup", { q: "x" }, "l1")] }),
        new AIMessage("Done."),
      ]);
      const planning = langChainPlanning(() => [todoList(AT_EVERY_TAIL)]);
      // LangChain's own middleware types do not compile under this repository's exactOptionalPropertyTypes;
      // the consumer-project test type-checks this pairing as users write it.
      const approval = (humanInTheLoopMiddleware as unknown as (opts: unknown) => AgentMiddleware)({ interruptOn: { lookup: true } });
      const agent =
        order === "planning first"
          ? createAgent({ model, tools: [lookup], middleware: [planning, approval], checkpointer: new MemorySaver() })
          : createAgent({ model, tools: [lookup], middleware: [approval, planning], checkpointer: new MemorySaver() });
      const config = { configurable: { thread_id: "review" } };
      const paused = await agent.invoke({ messages: [new HumanMessage("Look it up")] }, config);
      expect(paused.__interrupt__).toBeDefined();
      const result = await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), config);
      expect(result.messages.map(textOf)).toContain("found x");
      expect(result.todos).toEqual([{ content: "look", status: "in_progress" }]);
      expect(textOf(requests[1]!.at(-1)!)).toMatch(/^<todo-list>/);
    });
  }
});
