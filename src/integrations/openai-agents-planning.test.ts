import {
  MemorySession,
  run,
  RunState,
  setDefaultModelProvider,
  tool,
  Usage,
  type AgentInputItem,
  type Model,
  type ModelProvider,
  type ModelRequest,
  type ModelResponse,
} from "@openai/agents";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../core/events.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { todoList } from "../planning/todos/todo-list.js";
import { openAIAgentsPlanning, PLANNING_CONTEXT_KEY } from "./openai-agents-planning.js";
import { meetingPoint } from "./test-support/meeting-point.js";

// The todo list recited at the tail of every request: where these tests read each thread's list.
const AT_EVERY_TAIL = { reciteAfterTokens: 0 };

type Output = ModelResponse["output"];
type Turn = Output | ((request: ModelRequest) => Output);

/** The SDK ships no fake model: this one answers from a script (or from the request) and keeps a copy of every request. */
class ScriptedAgentsModel implements Model {
  readonly requests: ModelRequest[] = [];
  #turn = 0;
  constructor(private readonly turns: Turn[]) {}

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const { signal: _signal, ...copy } = request;
    this.requests.push(structuredClone(copy) as ModelRequest);
    const turn = this.turns[this.#turn++];
    if (!turn) throw new Error(`ScriptedAgentsModel: no turn ${this.#turn}`);
    return { usage: new Usage(), output: structuredClone(typeof turn === "function" ? turn(request) : turn) };
  }

  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not used");
  }
}

const functionCall = (name: string, args: unknown, callId: string) =>
  ({ type: "function_call", callId, name, arguments: JSON.stringify(args), status: "completed" }) as const;
const answer = (text: string): Output[number] => ({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text }] });
const writeTodos = (contents: string[], callId: string) =>
  functionCall("write_todos", { todos: contents.map((content) => ({ content, status: "pending" })) }, callId);

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

function itemText(item: AgentInputItem | undefined): string {
  return item && "content" in item && typeof item.content === "string" ? item.content : "";
}
const lastText = (input: string | AgentInputItem[]) => (Array.isArray(input) ? itemText(input.at(-1)) : "");
const recited = (request: ModelRequest) => (Array.isArray(request.input) ? request.input.map(itemText).filter((t) => t.startsWith("<todo-list>")) : []);
const firstUser = (request: ModelRequest) => (typeof request.input === "string" ? request.input : itemText(request.input[0]));

describe("openAIAgentsPlanning", () => {
  it("gives the agent the notebook's tools and its hint at the tail of every model call, never stored", async () => {
    const events: AgentEvent[] = [];
    const planning = openAIAgentsPlanning(() => [new PlanNotebook()], { onEvent: (e) => events.push(e) });
    const model = new ScriptedAgentsModel([[functionCall("create_plan", PLAN, "c1")], [functionCall("lookup", { q: "notes" }, "c2")], [answer("Done.")]]);
    const agent = planning.agent({ name: "writer", instructions: "Be brief.", model, tools: [lookup] });
    const result = await planning.run(agent, "Write the report");

    expect(result.finalOutput).toBe("Done.");
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["lookup", "create_plan", "finish_subtask", "view_subtasks"]));
    expect(model.requests[0]!.systemInstructions).toBe("Be brief.");
    expect(model.requests).toHaveLength(3);
    for (const request of model.requests) expect(lastText(request.input)).toMatch(/^<system-hint>/);
    expect(lastText(model.requests[1]!.input)).toContain("Gather");
    expect(JSON.stringify(result.history)).not.toContain("<system-hint>");
    expect(JSON.stringify(result.state._context.context)).toContain('"name":"Report"');
    expect(events.some((e) => e.type === "plan-updated")).toBe(true);
  });

  it("answers parallel write_todos calls with the Stepwise refusal instead of running them", async () => {
    const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const model = new ScriptedAgentsModel([
      [writeTodos(["a"], "w1"), writeTodos(["b"], "w2")],
      [functionCall("write_todos", { todos: [{ content: "a", status: "in_progress" }] }, "w3")],
      [answer("Done.")],
    ]);
    const result = await planning.run(planning.agent({ name: "worker", model }), "Do it");

    const outputs = result.history.flatMap((item) => ("type" in item && item.type === "function_call_result" ? [item] : []));
    const text = (callId: string) => JSON.stringify(outputs.find((o) => o.callId === callId)?.output);
    expect(text("w1")).toContain("Not applied: this turn called write_todos 2 times");
    expect(text("w2")).toBe(text("w1"));
    expect(JSON.stringify(result.state._context.context)).toContain('"content":"a","status":"in_progress"');
    expect(lastText(model.requests[2]!.input)).toMatch(/in_progress\W+#1 a\b/);
  });

  it("answers bad arguments with Stepwise's error naming the argument", async () => {
    const planning = openAIAgentsPlanning(() => [new PlanNotebook()]);
    const model = new ScriptedAgentsModel([[functionCall("finish_subtask", { subtask_idx: "first" }, "f1")], [answer("Giving up.")]]);
    const result = await planning.run(planning.agent({ name: "a", model }), "Go");
    const output = result.history.find((item) => "type" in item && item.type === "function_call_result");
    expect(JSON.stringify(output)).toContain("subtask_idx");
  });
});

describe("openAIAgentsPlanning keeps each run's plan in the run's own context", () => {
  const meet = () => tool({ name: "meet", description: "Wait for the other run.", parameters: z.object({}), execute: meetingPoint() });

  /** Answers each run from its own request: its list, then `meet`, then a final answer. */
  const byRun = (request: ModelRequest): Output => {
    const name = firstUser(request).replace("Work on ", "");
    const results = Array.isArray(request.input) ? request.input.filter((i) => "type" in i && i.type === "function_call_result").length : 0;
    if (results === 0) return [writeTodos([`${name} first`, `${name} second`], `${name}-w`)];
    if (results === 1) return [functionCall("meet", {}, `${name}-m`)];
    return [answer(`${name} done`)];
  };

  it("two runs interleaved mid-run each see only their own list (the shared-plan leak)", async () => {
    const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const model = new ScriptedAgentsModel(Array.from({ length: 6 }, () => byRun));
    const agent = planning.agent({ name: "worker", model, tools: [meet()] });
    const [a, b] = await Promise.all([planning.run(agent, "Work on alpha"), planning.run(agent, "Work on beta")]);
    expect(model.requests).toHaveLength(6);
    for (const request of model.requests) {
      const name = firstUser(request).replace("Work on ", "");
      for (const list of recited(request)) {
        expect(list).toContain(`${name} first`);
        expect(list).not.toContain(name === "alpha" ? "beta" : "alpha");
      }
    }
    expect(model.requests.filter((r) => recited(r).length > 0)).toHaveLength(4);
    expect(JSON.stringify(a.state._context.context)).not.toContain("beta");
    expect(JSON.stringify(b.state._context.context)).not.toContain("alpha");
  });

  it("a new run starts empty; a run paused for approval resumes in a new process with its list; nothing reaches the session", async () => {
    const deploy = tool({ name: "deploy", description: "Deploy.", parameters: z.object({}), needsApproval: true, execute: () => "deployed" });
    const session = new MemorySession();
    const first = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const model = new ScriptedAgentsModel([[writeTodos(["deploy"], "w1")], [functionCall("deploy", {}, "d1")]]);
    const paused = await first.run(first.agent({ name: "ops", model, tools: [deploy] }), "Deploy it", { session });
    expect(paused.interruptions).toHaveLength(1);
    const serialised = paused.state.toString();

    // Another process: a new planning bundle and agent, the run state from its string.
    const second = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const later = new ScriptedAgentsModel([[answer("Deployed.")], [answer("Nothing to do.")]]);
    const agent = second.agent({ name: "ops", model: later, tools: [deploy] });
    const state = await RunState.fromString(agent, serialised);
    state.approve(state.getInterruptions()[0]!);
    const resumed = await second.run(agent, state, { session });
    expect(resumed.finalOutput).toBe("Deployed.");
    expect(recited(later.requests[0]!)).toEqual([expect.stringContaining("#1 deploy")]);

    const fresh = await second.run(agent, "Anything else?");
    expect(fresh.finalOutput).toBe("Nothing to do.");
    expect(recited(later.requests[1]!)).toEqual([]);
    expect(JSON.stringify(await session.getItems())).not.toContain("<todo-list>");
  });

  it("refuses two overlapping runs on one context object, and a run started without planning.run", async () => {
    const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const gate = meet();
    const model = new ScriptedAgentsModel([[functionCall("meet", {}, "m1")], [answer("ok")]]);
    const agent = planning.agent({ name: "w", model, tools: [gate] });
    const context = { user: "ann" };
    const running = planning.run(agent, "one", { context });
    await expect(planning.run(agent, "two", { context })).rejects.toThrow(/another run is using this context object/);
    void gate.invoke({} as never, "{}").catch(() => {}); // the second arrival at the meeting point
    await running;

    await expect(run(planning.agent({ name: "x", model: new ScriptedAgentsModel([[answer("hi")]]) }), "hi")).rejects.toThrow(
      /outside planning\.run\(\)/,
    );
  });
});

describe("openAIAgentsPlanning wiring", () => {
  afterEach(() => setDefaultModelProvider(undefined as never));

  it("takes a model name where the SDK does, resolved by the default model provider or the one given", async () => {
    const named: string[] = [];
    const provider = (model: Model): ModelProvider => ({
      getModel: (name?: string) => {
        named.push(name ?? "");
        return model;
      },
    });
    const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const viaDefault = new ScriptedAgentsModel([[answer("one")]]);
    setDefaultModelProvider(provider(viaDefault));
    expect((await planning.run(planning.agent({ name: "a", model: "gpt-4.1" }), "hi")).finalOutput).toBe("one");

    const viaOption = new ScriptedAgentsModel([[answer("two")]]);
    const given = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)], { modelProvider: provider(viaOption) });
    expect((await given.run(given.agent({ name: "b", model: "gpt-4.1-mini" }), "hi")).finalOutput).toBe("two");
    expect(named).toEqual(["gpt-4.1", "gpt-4.1-mini"]);
  });

  it("keeps the user's own callModelInputFilter: it runs, and the list is appended after what it returns", async () => {
    const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const model = new ScriptedAgentsModel([[writeTodos(["a"], "w1")], [answer("Done.")]]);
    const seen: number[] = [];
    await planning.run(planning.agent({ name: "f", model }), "Do it", {
      callModelInputFilter: ({ modelData }) => {
        seen.push(modelData.input.length);
        return { ...modelData, input: [{ role: "user", content: "(filtered)" }, ...modelData.input] };
      },
    });
    expect(seen).toHaveLength(2);
    expect(itemText((model.requests[1]!.input as AgentInputItem[])[0])).toBe("(filtered)");
    expect(lastText(model.requests[1]!.input)).toMatch(/^<todo-list>/);
  });

  it("keeps the plan under the run context's stepwise key, beside the user's own entries", async () => {
    const planning = openAIAgentsPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const context = { user: "ann" };
    const model = new ScriptedAgentsModel([[writeTodos(["a"], "w1")], [answer("Done.")]]);
    await planning.run(planning.agent<typeof context>({ name: "c", model }), "Do it", { context });
    expect(context.user).toBe("ann");
    expect(JSON.stringify((context as Record<string, unknown>)[PLANNING_CONTEXT_KEY])).toContain('"content":"a"');
  });
});
