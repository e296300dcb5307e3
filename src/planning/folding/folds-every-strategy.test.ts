import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import type { Message } from "../../core/messages.js";
import type { Plugin } from "../../core/plugin.js";
import { scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { PlanNotebook } from "../notebook/plan-notebook.js";
import { TaskBoard } from "../tasks/task-board.js";
import { TaskReminder } from "../tasks/task-reminder.js";
import { todoList } from "../todos/todo-list.js";
import { contextFolding } from "./context-folding.js";
import { isValidToolSequence, readFile } from "./test-support/work-units.js";

const UNITS = 6;
const READS_PER_UNIT = 4;
const BUDGET = 3000;
const titleOf = (u: number) => `Review module ${u}`;

type Call = { name: string; arguments: unknown };

/** How one real planning strategy starts the first unit, hands over from one unit to the next, and names a unit for recall. */
interface Strategy {
  name: string;
  kind: string;
  setup(): Promise<{ plugins: Plugin[]; refOf(u: number): string; tail(): string }>;
  start(): Call[];
  handover(u: number): Call[];
  outcomeOf(u: number): string;
}

const notebook: Strategy = {
  name: "plan notebook",
  kind: "subtask",
  async setup() {
    const plan = new PlanNotebook();
    return {
      plugins: [plan],
      refOf: (u) => `subtask:${plan.currentPlan?.subtasks[u]?.id ?? "?"}`,
      tail: () => plan.hint() ?? "",
    };
  },
  start: () => [
    {
      name: "create_plan",
      arguments: {
        name: "Review",
        description: "Review every module.",
        expected_outcome: "Every module reviewed.",
        subtasks: Array.from({ length: UNITS }, (_, u) => ({ name: titleOf(u), description: `Read module ${u}.`, expected_outcome: "Notes." })),
      },
    },
    { name: "update_subtask_state", arguments: { subtask_idx: 0, state: "in_progress" } },
  ],
  handover: (u) => [{ name: "finish_subtask", arguments: { subtask_idx: u, subtask_outcome: `module ${u} is sound` } }],
  outcomeOf: (u) => `module ${u} is sound`,
};

const board: Strategy = {
  name: "task board",
  kind: "task",
  async setup() {
    const tasks = new TaskBoard({ agentName: "reviewer" });
    for (let u = 0; u < UNITS; u++) await tasks.create({ subject: titleOf(u), description: `Read module ${u}.` });
    return { plugins: [tasks, new TaskReminder(tasks)], refOf: (u) => `task:${u + 1}`, tail: () => "<system-reminder>Task board:" };
  },
  start: () => [{ name: "TaskUpdate", arguments: { task_id: "1", status: "in_progress" } }],
  handover: (u) => [
    { name: "TaskUpdate", arguments: { task_id: String(u + 1), status: "completed", metadata: { result: `module ${u} is sound` } } },
    { name: "TaskUpdate", arguments: { task_id: String(u + 2), status: "in_progress" } },
  ],
  outcomeOf: (u) => `${titleOf(u)} — result: module ${u} is sound`,
};

const todosAt = (current: number) =>
  Array.from({ length: UNITS }, (_, u) => ({ content: titleOf(u), status: u < current ? "completed" : u === current ? "in_progress" : "pending" }));

const todos: Strategy = {
  name: "todo list",
  kind: "todo",
  async setup() {
    // Recited at the tail of every request, so this run has a plugin tail to keep last, as the others do.
    const list = todoList({ reciteAfterTokens: 0 });
    return { plugins: [list], refOf: (u) => `todo:${u + 1}`, tail: () => "<todo-list>" };
  },
  start: () => [{ name: "write_todos", arguments: { todos: todosAt(0) } }],
  handover: (u) => [{ name: "write_todos", arguments: { todos: todosAt(u + 1) } }],
  outcomeOf: (u) => titleOf(u),
};

const read = (u: number, s: number): Call => ({ name: "read_file", arguments: { path: `src/m${u}/f${s}.ts` } });

/** The tool-call turns: every unit but the last is finished; the last one is still in progress at the end. Call ids are explicit, so a resumed run's never repeat. */
function workTurns(strategy: Strategy): ScriptedTurn[] {
  const calls: Call[][] = [[...strategy.start(), read(0, 0)]];
  for (let u = 0; u < UNITS; u++) {
    for (let s = u === 0 ? 1 : 0; s < READS_PER_UNIT; s++) calls.push([read(u, s)]);
    if (u < UNITS - 1) calls.push(strategy.handover(u));
  }
  return calls.map((turn, t) => ({ toolCalls: turn.map((call, c) => ({ ...call, id: `t${t}_${c}` })) }));
}

const recallTurn = (ref: () => string): ScriptedTurn => () => ({ toolCalls: [{ name: "recall", arguments: { unit: ref() }, id: "recall_1" }] });

function trajectory(strategy: Strategy, recall?: () => string): ScriptedTurn[] {
  return [...workTurns(strategy), ...(recall ? [recallTurn(recall)] : []), "Paused: the last module is still under review."];
}

async function run(strategy: Strategy, opts: { fold: boolean }) {
  const { plugins, refOf, tail } = await strategy.setup();
  const folding = contextFolding({ budgetTokens: BUDGET });
  const model = scriptedModel(trajectory(strategy, opts.fold ? () => refOf(0) : undefined));
  const agent = new Agent({ model, tools: [readFile], plugins: opts.fold ? [...plugins, folding] : plugins, maxSteps: 100 });
  const events: AgentEvent[] = [];
  agent.on((event) => events.push(event));
  const result = await agent.run("Review the modules.");
  return { agent, model, events, result, refOf, tail, folding };
}

/** Unit 0's turns: from the first assistant message up to the turn that hands over to unit 1. */
function firstUnitMessages(memory: readonly Message[]): Message[] {
  const handover = memory.findIndex((m, i) => i > 1 && m.role === "assistant" && m.toolCalls?.some((call) => call.name !== "read_file"));
  return memory.slice(1, handover);
}

describe.each([notebook, board, todos])("context folding with the $name", (strategy) => {
  it("folds finished units into records naming them, keeps the live unit verbatim and the plugin's tail last, and recalls the originals", async () => {
    const folded = await run(strategy, { fold: true });
    expect(folded.result.stopReason).toBe("final");
    const folds = folded.events.flatMap((e) => (e.type === "context-folded" ? e.units : []));
    expect(folds.length).toBeGreaterThan(0);
    expect(folds.every((fold) => fold.unit.kind === strategy.kind)).toBe(true);
    expect(folds[0]?.unit).toMatchObject({ title: titleOf(0) });
    expect(`${strategy.kind}:${folds[0]?.unit.id}`).toBe(folded.refOf(0));

    // Finished units became one record each, naming the unit, its outcome and the files it read (as
    // requests show it: older records later merge into a digest).
    const sent = folded.model.requests.flatMap((req) => req.messages);
    const record = sent.find((m) => m.role === "assistant" && m.content.includes(`<folded-work unit="${folded.refOf(0)}">`));
    expect(record?.content).toContain(titleOf(0));
    expect(record?.content).toContain(`Outcome: ${strategy.outcomeOf(0)}`);
    expect(record?.content).toContain("src/m0/f3.ts");
    expect(folded.agent.memory.some((m) => m.role === "tool" && m.content.startsWith("// src/m0/"))).toBe(false);

    // The live unit's work is all there, word for word.
    const live = UNITS - 1;
    for (let s = 0; s < READS_PER_UNIT; s++) {
      const original = (await readFile.invoke({ path: `src/m${live}/f${s}.ts` })).text;
      expect(folded.agent.memory.some((m) => m.role === "tool" && m.content === original)).toBe(true);
    }
    expect(folds.map((fold) => fold.unit.title)).not.toContain(titleOf(live));

    // The plugin's tail message stays the last message of every request, and never enters memory.
    for (const req of folded.model.requests.slice(1)) {
      expect(req.messages.at(-1)?.content.startsWith(folded.tail().slice(0, 20))).toBe(true);
      expect(isValidToolSequence(req.messages.slice(0, -1))).toBe(true);
    }
    expect(folded.model.requests.at(-1)?.messages.at(-1)?.content).toContain(folded.tail());
    expect(folded.agent.memory.some((m) => m.content.startsWith(folded.tail().slice(0, 12)))).toBe(false);

    // recall gives back unit 0's turns exactly as an unfolded run has them.
    const unfolded = await run(strategy, { fold: false });
    const recalled = folded.events.find((e) => e.type === "tool-end" && e.call.name === "recall");
    expect(recalled?.type === "tool-end" && recalled.result.isError).toBe(false);
    const body = JSON.parse(recalled?.type === "tool-end" ? recalled.result.text : "{}") as { outcome: string; messages: Message[] };
    expect(body.outcome).toBe(strategy.outcomeOf(0));
    expect(body.messages).toEqual(firstUnitMessages(unfolded.agent.memory));
  });
});

describe.each([notebook, board, todos])("context folding with the $name across a saved state", (strategy) => {
  it("finishes and folds the unit that was in progress when the state was saved, under the same reference", async () => {
    const turns = workTurns(strategy);
    // Cut in the middle of unit 3: two of its reads happen before the save, two after.
    const cut = turns.findIndex((turn) => JSON.stringify(turn).includes("src/m3/f2.ts"));
    const first = await strategy.setup();
    const firstAgent = new Agent({
      model: scriptedModel([...turns.slice(0, cut), "Pausing."]),
      tools: [readFile],
      plugins: [...first.plugins, contextFolding({ budgetTokens: BUDGET })],
      maxSteps: 100,
    });
    await firstAgent.run("Review the modules.");
    const saved = structuredClone(firstAgent.saveState());

    const second = await strategy.setup();
    const folding = contextFolding({ budgetTokens: BUDGET });
    const model = scriptedModel([...turns.slice(cut), recallTurn(() => second.refOf(3)), "Paused."]);
    const agent = new Agent({ model, tools: [readFile], plugins: [...second.plugins, folding], maxSteps: 100 });
    agent.loadState(saved);
    const events: AgentEvent[] = [];
    agent.on((event) => events.push(event));
    await agent.run("Carry on.");

    const folded = events.flatMap((e) => (e.type === "context-folded" ? e.units : []));
    expect(folded.map((fold) => `${fold.unit.kind}:${fold.unit.id}`)).toContain(second.refOf(3));
    expect(second.refOf(3)).toBe(first.refOf(3));
    const recalled = events.find((e) => e.type === "tool-end" && e.call.name === "recall");
    const body = JSON.parse(recalled?.type === "tool-end" ? recalled.result.text : "{}") as { outcome: string; messages: Message[] };
    expect(body.outcome).toBe(strategy.outcomeOf(3));
    const reads = body.messages.flatMap((m) => (m.role === "tool" && m.name === "read_file" ? [m.content.split("\n")[0]] : []));
    expect(reads).toEqual(["// src/m3/f0.ts", "// src/m3/f1.ts", "// src/m3/f2.ts", "// src/m3/f3.ts"]);
  });
});
