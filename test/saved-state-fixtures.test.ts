import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  Agent,
  contextFolding,
  defineTool,
  LLMCompiler,
  PlanAndExecute,
  PlanNotebook,
  PlanTool,
  Rewoo,
  scriptedModel,
  TaskBoard,
  todoList,
  ToolPause,
  type AgentState,
  type WorkflowState,
} from "../src/index.js";

// Saved states written by earlier versions: every one must keep loading. Add a fixture whenever a
// saved shape changes; never edit one.
function fixture<T = AgentState>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/saved-states/${name}`, import.meta.url), "utf8")) as T;
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

  it("v1, a plan-and-execute run paused on a revised plan: resumes with the approval and finishes", async () => {
    const state = fixture<WorkflowState>("v1-workflow-plan-and-execute-awaiting-replan-approval.json");
    const echo = (req: { messages: { content: string }[] }) => `did: ${/Current step: (.*)/.exec(String(req.messages.at(-1)?.content))?.[1]}`;
    const executor = scriptedModel([echo, echo]);
    const workflow = new PlanAndExecute({ model: scriptedModel(['{"steps": ["Double it"]}', '{"answer": "twice is 20"}']), executorModel: executor, approvePlans: true });
    const outcome = await workflow.run(state.task, { state, decisions: { "plan-2": { action: "approve" } } });
    expect(outcome).toMatchObject({ stopReason: "final", text: "twice is 20" });
    expect(outcome.trace.steps.map((s) => s.result)).toEqual(["did: Fetch the price", "did: Read the price list", "did: Double it"]);
  });

  it("v1, a compiler run saved mid-round: resumes without calling the finished task again", async () => {
    const state = fixture<WorkflowState>("v1-workflow-compiler-mid-round.json");
    const calls: string[] = [];
    const note = defineTool({
      name: "note",
      description: "Notes a name.",
      parameters: z.object({ name: z.string() }),
      execute: ({ name }) => {
        calls.push(name);
        return `noted ${name}`;
      },
    });
    const plan = ['{"id": 1, "tool": "note", "args": {"name": "a"}}', '{"id": 2, "tool": "note", "args": {"name": "b from $1"}}', '{"tool": "join"}'].join("\n");
    const compiler = new LLMCompiler({ model: scriptedModel([plan, '{"action": "finish", "answer": "noted both"}']), tools: [note] });
    const outcome = await compiler.run(state.task, { state });
    expect(outcome).toMatchObject({ stopReason: "final", text: "noted both" });
    expect(calls).toEqual(["b from noted a"]);
  });

  it("v1, a ReWOO run whose plan was edited, paused on a step's call (held calls and review note in its progress): resumes and runs the call once", async () => {
    const state = fixture<WorkflowState>("v1-workflow-rewoo-paused-on-step-call.json");
    const { lookup, note, notes } = noteTools();
    const solver = scriptedModel([(req) => `solved with ${/fact\(q1\) twice/.test(String(req.messages[0]?.content)) ? "the edited step" : "?"}`]);
    const rewoo = new Rewoo({ model: scriptedModel([]), solverModel: solver, tools: [lookup, note], approvePlans: true, permissions: {} });
    const outcome = await rewoo.run(state.task, { state, decisions: { "step-#E2": { action: "approve" } } });
    expect(outcome).toMatchObject({ stopReason: "final", text: "solved with the edited step" });
    expect(notes).toEqual(["fact(q1) twice"]);
    // The review's note reaches the solver, as it did before the run paused.
    expect(String(solver.requests[0]?.messages[0]?.content)).toContain("fact(q1) twice");
  });

  it("v1, a compiler run paused on its second plan proposal (one rejected before): approved, it runs that plan", async () => {
    const state = fixture<WorkflowState>("v1-workflow-compiler-awaiting-plan-approval.json");
    const { note, notes } = noteTools();
    const compiler = new LLMCompiler({ model: scriptedModel([]), joinerModel: scriptedModel(['{"action": "finish", "answer": "noted b"}']), tools: [note], approvePlans: true });
    const outcome = await compiler.run(state.task, { state, decisions: { "plan-2": { action: "approve" } } });
    expect(outcome).toMatchObject({ stopReason: "final", text: "noted b" });
    expect(notes).toEqual(["b"]);
    expect(outcome.trace.plans[0]?.review?.earlier.map((e) => e.feedback)).toEqual(["note b instead"]);
  });

  it("v1, a plan-tool run paused on its plan: rejected, it plans once more and pauses on plan-2", async () => {
    const state = fixture<WorkflowState>("v1-workflow-plan-tool-awaiting-plan-approval.json");
    const { lookup, note } = noteTools();
    const planTool = new PlanTool({ model: scriptedModel(['{"subtasks": ["Write it down"]}']), tools: [lookup, note], approvePlans: true });
    const outcome = await planTool.run(state.task, { state, decisions: { "plan-1": { action: "reject", reason: "no lookup" } } });
    expect(outcome.stopReason).toBe("awaiting-user");
    expect(outcome.pending?.map((call) => [call.id, JSON.parse(call.arguments).steps])).toEqual([["plan-2", ["Write it down"]]]);
  });

  it("v1, an agent paused on a question its tool asked mid-call (ToolPause), one answered before: resumes and the call goes on with both answers", async () => {
    const saved = fixture("v1-agent-paused-on-tool-question.json");
    const { tool, made } = askingBookTool();
    const agent = new Agent({ name: "fixture", model: scriptedModel(["done"]), tools: [tool] });
    agent.loadState(saved);
    expect(agent.saveState()).toEqual(saved);
    const result = await agent.resume(null, { "b1-q2": { action: "answer", text: "10:00" } });
    expect(result.stopReason).toBe("final");
    expect(made).toEqual([["room=Lovelace", "time=10:00"]]);
  });
});

/** The tools of the workflow fixtures: a read-only lookup and a note that writes (and is counted). */
function noteTools() {
  const notes: string[] = [];
  const lookup = defineTool({ name: "lookup", description: "Looks up.", parameters: z.object({ query: z.string() }), readOnly: true, execute: ({ query }) => `fact(${query})` });
  const note = defineTool({
    name: "note",
    description: "Notes a text.",
    parameters: z.object({ text: z.string() }),
    execute: ({ text }) => {
      notes.push(text);
      return `noted ${text}`;
    },
  });
  return { lookup, note, notes };
}

/**
 * The tool of the paused-on-a-question fixture: it needs a room, then a time, from the user, and
 * pauses its call for each (ToolPause) with the answers so far as its state.
 */
function askingBookTool() {
  const made: string[][] = [];
  type Asking = { answers: string[]; waiting: { id: string; about: string } };
  const tool = defineTool({
    name: "book",
    description: "Books a room at a time.",
    parameters: z.object({ who: z.string() }),
    execute: ({ who }, ctx) => {
      const state = ctx.resumed?.state as Asking | undefined;
      const reply = state ? ctx.resumed?.decisions[state.waiting.id] : undefined;
      const answers = state ? [...state.answers, `${state.waiting.about}=${reply?.action === "answer" ? reply.text : "declined"}`] : [];
      for (const [about, question] of [["room", "Which room?"], ["time", "What time?"]] as const) {
        if (answers.some((answer) => answer.startsWith(`${about}=`))) continue;
        const id = `${ctx.toolCallId}-q${answers.length + 1}`;
        throw new ToolPause([{ id, name: "ask_user", kind: "question", arguments: JSON.stringify({ question }) }], { answers, waiting: { id, about } });
      }
      made.push(answers);
      return `${who}: booked`;
    },
  });
  return { tool, made };
}
