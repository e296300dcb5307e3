import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { generateText, stepCountIs, tool, ToolLoopAgent } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentEvent } from "../core/events.js";
import type { AfterToolContext, Plugin } from "../core/plugin.js";
import { defineTool, ToolError } from "../core/tool.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { todoList } from "../planning/todos/todo-list.js";
import { TODO_INSTRUCTIONS } from "../planning/todos/write-todos-description.js";
import { aiSdkPlanning } from "./ai-sdk-planning.js";
import { callTool, reply } from "./test-support/ai-sdk-replies.js";
import { meetingPoint } from "./test-support/meeting-point.js";

// The todo list recited at the tail of every request: where these tests read each thread's list.
const AT_EVERY_TAIL = { reciteAfterTokens: 0 };


function lastMessage(call: LanguageModelV3CallOptions | undefined) {
  return call?.prompt.at(-1);
}

/** A counter whose value is recited at the tail of every request, as a plan hint would be; `plugins` makes a call's own. */
function counterPlugin() {
  let count = 0;
  const seen: AfterToolContext[] = [];
  const make = (): Plugin => {
    count = 0;
    return {
      name: "counter",
      instructions: () => "Bump the counter when asked.",
      tools: () => [
        defineTool({
          name: "bump",
          description: "Add to the counter.",
          parameters: z.object({ by: z.number().int() }),
          execute: ({ by }) => {
            if (by <= 0) throw new ToolError("bump only adds: pass a positive number.");
            count += by;
            return `Counter is ${count}.`;
          },
        }),
      ],
      beforeModel: () => [{ role: "user", content: `<counter>${count}</counter>` }],
      afterTool: (ctx) => void seen.push(ctx),
    };
  };
  return { plugins: () => [make()], make, seen, count: () => count };
}

describe("aiSdkPlanning inside generateText", () => {
  it("puts the plugin's tail message last in every request and never keeps it in the conversation", async () => {
    const counter = counterPlugin();
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("c1", "bump", { by: 2 })]),
        reply([callTool("c2", "bump", { by: 3 })]),
        reply([{ type: "text", text: "The counter is 5." }]),
      ],
    });
    const planning = aiSdkPlanning(counter.plugins);
    const result = await generateText(planning.call({ model, system: "You are terse.", prompt: "Bump by 2, then by 3.", stopWhen: stepCountIs(5) }));

    expect(result.text).toBe("The counter is 5.");
    expect(counter.count()).toBe(5);
    const calls = model.doGenerateCalls;
    expect(calls).toHaveLength(3);
    expect(calls.map((call) => lastMessage(call))).toEqual(
      [0, 2, 5].map((n) => ({ role: "user", content: [{ type: "text", text: `<counter>${n}</counter>` }] })),
    );
    const hintsInLastCall = JSON.stringify(calls[2]?.prompt).match(/<counter>/g);
    expect(hintsInLastCall).toHaveLength(1);
    expect(calls[0]?.prompt[0]).toEqual({ role: "system", content: "You are terse.\n\nBump the counter when asked." });
    expect(calls[0]?.tools?.map((tool) => tool.name)).toEqual(["bump"]);
  });

  it("shows error results to the model and every outcome to afterTool", async () => {
    const counter = counterPlugin();
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("c1", "bump", { by: -1 }), callTool("c2", "bump", { by: "two" })]),
        reply([{ type: "text", text: "I could not bump it." }]),
      ],
    });
    await generateText(aiSdkPlanning(counter.plugins).call({ model, prompt: "Bump.", stopWhen: stepCountIs(3) }));

    const toolMessage = model.doGenerateCalls[1]?.prompt.find((message) => message.role === "tool");
    expect(toolMessage?.content).toMatchObject([
      { toolCallId: "c1", output: { type: "error-text", value: "bump only adds: pass a positive number." } },
      { toolCallId: "c2", output: { type: "error-text", value: expect.stringMatching(/by/) } },
    ]);
    expect(counter.seen.map((ctx) => [ctx.step, ctx.call.id, ctx.result.isError, ctx.refused])).toEqual([
      [1, "c1", true, false],
      [1, "c2", true, false],
    ]);
    expect(counter.seen[0]?.memory.at(-1)).toMatchObject({ role: "tool", toolCallId: "c2" });
  });

  it("repairs a number sent as text the way a Stepwise agent does", async () => {
    const counter = counterPlugin();
    const model = new MockLanguageModelV3({
      doGenerate: [reply([callTool("c1", "bump", { by: "4" })]), reply([{ type: "text", text: "Done." }])],
    });
    await generateText(aiSdkPlanning(counter.plugins).call({ model, prompt: "Bump by 4.", stopWhen: stepCountIs(3) }));
    expect(counter.count()).toBe(4);
  });

  it("recites the todo list after write_todos and forwards its events", async () => {
    let todos = todoList(AT_EVERY_TAIL);
    const events: AgentEvent[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("w1", "write_todos", { todos: [{ content: "Read the logs", status: "in_progress" }] })]),
        reply([{ type: "text", text: "Working on it." }]),
      ],
    });
    // Recited at the tail of every request, the adapter's tail path is what this checks.
    const planning = aiSdkPlanning(() => [(todos = todoList(AT_EVERY_TAIL))], { agentName: "helper", onEvent: (event) => events.push(event) });
    await generateText(planning.call({ model, prompt: "Triage the logs.", stopWhen: stepCountIs(3) }));

    expect(todos.todos).toEqual([{ content: "Read the logs", status: "in_progress" }]);
    expect(lastMessage(model.doGenerateCalls[0])?.role).toBe("user");
    expect(JSON.stringify(lastMessage(model.doGenerateCalls[0]))).not.toContain("<todo-list>");
    expect(JSON.stringify(lastMessage(model.doGenerateCalls[1]))).toContain("in_progress:\\n#1 Read the logs");
    expect(events).toMatchObject([
      { type: "todos-updated", agent: "helper", todos: [{ content: "Read the logs" }] },
      { type: "unit-start", agent: "helper", unit: { kind: "todo", title: "Read the logs" } },
    ]);
    // Both belong to the one AI SDK run.
    expect(new Set(events.map((e) => e.runId)).size).toBe(1);
    expect(events[0]?.runId).toEqual(expect.any(String));
  });

  it("gives the plan notebook's hint to each step once a plan exists", async () => {
    let notebook = new PlanNotebook();
    const subtasks = [{ name: "Read the logs", description: "Collect errors.", expected_outcome: "A list." }];
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("p1", "create_plan", { name: "Triage", description: "Find failures.", expected_outcome: "A summary.", subtasks })]),
        reply([{ type: "text", text: "Planned." }]),
      ],
    });
    await generateText(aiSdkPlanning(() => [(notebook = new PlanNotebook())]).call({ model, prompt: "Triage the logs.", stopWhen: stepCountIs(3) }));

    expect(notebook.currentPlan?.name).toBe("Triage");
    const hint = lastMessage(model.doGenerateCalls[1]);
    expect(hint?.role).toBe("user");
    expect(JSON.stringify(hint)).toContain("<system-hint>");
    expect(JSON.stringify(hint)).toContain("Read the logs");
  });

  it("refuses two plugins offering the same tool name", () => {
    const a = counterPlugin().make();
    const b = { ...counterPlugin().make(), name: "other" };
    expect(() => aiSdkPlanning(() => [a, b])).toThrow(/"bump"/);
  });
});

describe("aiSdkPlanning gives each call its own plugins", () => {
  const promptText = (options: LanguageModelV3CallOptions) => JSON.stringify(options.prompt);
  const firstUserText = (options: LanguageModelV3CallOptions) => {
    const user = options.prompt.find((message) => message.role === "user");
    return user && Array.isArray(user.content) && user.content[0]?.type === "text" ? user.content[0].text : "";
  };
  const recitedLists = (calls: LanguageModelV3CallOptions[]) => calls.map((call) => promptText(call).match(/<todo-list>[^<]*<\/todo-list>/g) ?? []);

  const meetingTool = () => tool({ description: "Wait for the other call.", inputSchema: z.object({}), execute: meetingPoint() });

  /** Answers each call from its own prompt: its list, then `meet`, then a final answer. */
  const byCall = async (options: LanguageModelV3CallOptions) => {
    const name = firstUserText(options).replace("Work on ", "");
    const results = options.prompt.filter((message) => message.role === "tool").length;
    if (results === 0) return reply([callTool(`${name}-w`, "write_todos", { todos: [{ content: `${name} first`, status: "pending" }] })]);
    if (results === 1) return reply([callTool(`${name}-m`, "meet", {})]);
    return reply([{ type: "text", text: `${name} done` }]);
  };

  it("two calls interleaved mid-call each see only their own list (the shared-plan leak), and a later call starts empty", async () => {
    const model = new MockLanguageModelV3({ doGenerate: byCall });
    const planning = aiSdkPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const meet = meetingTool();
    await Promise.all(
      ["alpha", "beta"].map((name) => generateText(planning.call({ model, tools: { meet }, prompt: `Work on ${name}`, stopWhen: stepCountIs(5) }))),
    );
    const calls = model.doGenerateCalls;
    expect(calls).toHaveLength(6);
    for (const [i, lists] of recitedLists(calls).entries()) {
      const name = firstUserText(calls[i]!).replace("Work on ", "");
      for (const list of lists) expect(list).not.toContain(name === "alpha" ? "beta" : "alpha");
    }
    expect(recitedLists(calls).filter((lists) => lists.length === 1)).toHaveLength(4);

    const later = new MockLanguageModelV3({ doGenerate: [reply([{ type: "text", text: "Nothing to do." }])] });
    await generateText(planning.call({ model: later, prompt: "Anything?" }));
    expect(promptText(later.doGenerateCalls[0]!)).not.toContain("<todo-list>");
  });

  it("refuses settings used for a second call, whose plan they hold", async () => {
    const planning = aiSdkPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const model = new MockLanguageModelV3({ doGenerate: async () => reply([{ type: "text", text: "ok" }]) });
    const settings = planning.call({ model, prompt: "Once." });
    await generateText(settings);
    await expect(generateText(settings)).rejects.toThrow(/already served a call/);
  });

  it("merges your tools, prepareStep and onStepFinish with the planning ones, keeping your tools' result types", async () => {
    const weather = tool({ description: "Weather.", inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => ({ city, celsius: 21 }) });
    const model = new MockLanguageModelV3({
      doGenerate: [
        reply([callTool("w1", "write_todos", { todos: [{ content: "check weather", status: "in_progress" }] }), callTool("c1", "weather", { city: "Oslo" })]),
        reply([{ type: "text", text: "21 degrees." }]),
      ],
    });
    const yourSteps: number[] = [];
    const planning = aiSdkPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const result = await generateText(
      planning.call({
        model,
        tools: { weather },
        prompt: "Weather in Oslo?",
        stopWhen: stepCountIs(4),
        // Your own prepareStep trims what is sent; the list is still appended after what it returns.
        prepareStep: ({ messages }) => ({ messages: messages.slice(-3) }),
        onStepFinish: (step) => void yourSteps.push(step.stepNumber),
      }),
    );
    const weatherResult = result.steps[0]!.toolResults.find((r) => r.toolName === "weather");
    if (weatherResult && !weatherResult.dynamic && weatherResult.toolName === "weather") {
      const celsius: number = weatherResult.output.celsius; // typed: the output of your tool, not unknown
      expect(celsius).toBe(21);
    } else throw new Error("no weather result");
    expect(yourSteps).toEqual([0, 1]);
    expect(JSON.stringify(lastMessage(model.doGenerateCalls[1]))).toContain("<todo-list>");
    expect(model.doGenerateCalls[1]!.prompt.length).toBeLessThanOrEqual(5);
    expect(model.doGenerateCalls[0]!.tools?.map((t) => t.name).sort()).toEqual(["weather", "write_todos"]);
  });

  it("gives a ToolLoopAgent instructions, and each generate() its own plugins", async () => {
    const counter = counterPlugin();
    const model = new MockLanguageModelV3({ doGenerate: byCall });
    const planning = aiSdkPlanning(() => [todoList(AT_EVERY_TAIL), counter.make()]);
    const agent = new ToolLoopAgent(planning.agent({ model, instructions: "Be terse.", tools: { meet: meetingTool() }, stopWhen: stepCountIs(5) }));
    await Promise.all(["alpha", "beta"].map((name) => agent.generate({ prompt: `Work on ${name}` })));
    const calls = model.doGenerateCalls;
    expect(calls).toHaveLength(6);
    expect(calls[0]!.prompt[0]).toEqual({ role: "system", content: `Be terse.\n\n${TODO_INSTRUCTIONS}\n\nBump the counter when asked.` });
    for (const [i, lists] of recitedLists(calls).entries()) {
      const name = firstUserText(calls[i]!).replace("Work on ", "");
      for (const list of lists) expect(list).not.toContain(name === "alpha" ? "beta" : "alpha");
    }
    expect(recitedLists(calls).filter((lists) => lists.length === 1)).toHaveLength(4);
  });

  it("keeps a ToolLoopAgent's calls apart though they share one experimental_context, which your tools still read", async () => {
    const shared = { user: "ann" };
    const users: unknown[] = [];
    const whoami = tool({
      description: "Who am I?",
      inputSchema: z.object({}),
      execute: async (_input, { experimental_context }) => {
        users.push((experimental_context as typeof shared).user);
        return "ann";
      },
    });
    const meet = meetingTool();
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        const name = firstUserText(options).replace("Work on ", "");
        const results = options.prompt.filter((message) => message.role === "tool").length;
        if (results === 0) return reply([callTool(`${name}-w`, "write_todos", { todos: [{ content: `${name} first`, status: "pending" }] }), callTool(`${name}-u`, "whoami", {})]);
        if (results === 1) return reply([callTool(`${name}-m`, "meet", {})]);
        return reply([{ type: "text", text: "done" }]);
      },
    });
    const planning = aiSdkPlanning(() => [todoList(AT_EVERY_TAIL)]);
    const agent = new ToolLoopAgent(planning.agent({ model, tools: { meet, whoami }, experimental_context: shared, stopWhen: stepCountIs(5) }));
    await Promise.all(["alpha", "beta"].map((name) => agent.generate({ prompt: `Work on ${name}` })));
    await agent.generate({ prompt: "Work on gamma" });
    expect(users).toEqual(["ann", "ann", "ann"]);
    for (const [i, lists] of recitedLists(model.doGenerateCalls).entries()) {
      const name = firstUserText(model.doGenerateCalls[i]!).replace("Work on ", "");
      for (const list of lists) expect(list).toContain(name);
    }
    expect(recitedLists(model.doGenerateCalls).filter((lists) => lists.length === 1)).toHaveLength(6);
  });
});
