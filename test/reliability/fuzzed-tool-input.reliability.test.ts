import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/core/agent.js";
import { MAX_ARGUMENT_CHARS, MAX_ARGUMENT_DEPTH } from "../../src/core/argument-limits.js";
import type { Tool, ToolResult } from "../../src/core/tool.js";
import { scriptedModel } from "../../src/models/scripted.js";
import { contextFolding } from "../../src/planning/folding/context-folding.js";
import { PlanNotebook } from "../../src/planning/notebook/plan-notebook.js";
import { TaskBoard } from "../../src/planning/tasks/task-board.js";
import { todoList, type TodoList } from "../../src/planning/todos/todo-list.js";
import { tempWorkspace } from "../../src/tools/test-support/temp-workspace.js";
import { recordFigure } from "./figures.js";

/**
 * Every model-facing tool gets random and malformed arguments. No exception may escape `invoke`;
 * every error must be one the model can act on (naming the argument, or the rule it broke, never a
 * bare crash message); each plugin's state stays valid after every call.
 */
let callsTried = 0;
let escapes = 0;
const escapeSamples: string[] = [];

afterAll(() => {
  recordFigure("1-fuzz", `fuzz calls tried ${callsTried}, escapes ${escapes}`);
});

const RUNS = 400;

// ---- argument generators: near-valid shapes mixed with every kind of malformed value -------------

const oddText = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("", " ", "\u0000", "\u202e\u200b", "😀👩‍👩‍👧", "../../etc/passwd", "%2e%2e/%2e%2e", "null", "{}", "[]", "a".repeat(200_000)),
);
const oddNumber = fc.oneof(
  fc.integer({ min: -3, max: 8 }),
  fc.constantFrom(-1, 1e308, -1e308, 2 ** 53 + 1, 0.5, -0, Number.MAX_SAFE_INTEGER),
  fc.double({ noNaN: false }),
);
const junk = fc.oneof(fc.anything({ maxDepth: 3 }), oddText, oddNumber, fc.constant(null), fc.boolean());
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.oneof(arb, junk);

const subtask = fc.record(
  { name: maybe(oddText), description: maybe(oddText), expected_outcome: maybe(oddText) },
  { requiredKeys: [] },
);
const NEAR_VALID: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  create_plan: fc.record(
    { name: maybe(oddText), description: maybe(oddText), expected_outcome: maybe(oddText), subtasks: maybe(fc.array(subtask, { maxLength: 5 })) },
    { requiredKeys: [] },
  ),
  view_subtasks: fc.record({ subtask_idx: maybe(fc.array(oddNumber, { maxLength: 4 })) }, { requiredKeys: [] }),
  update_subtask_state: fc.record(
    { subtask_idx: maybe(oddNumber), state: maybe(fc.constantFrom("todo", "in_progress", "done", "abandoned", "DONE", "")) },
    { requiredKeys: [] },
  ),
  finish_subtask: fc.record({ subtask_idx: maybe(oddNumber), subtask_outcome: maybe(oddText) }, { requiredKeys: [] }),
  revise_current_plan: fc.record(
    { subtask_idx: maybe(oddNumber), action: maybe(fc.constantFrom("add", "revise", "delete", "remove")), subtask: maybe(subtask) },
    { requiredKeys: [] },
  ),
  finish_plan: fc.record({ state: maybe(fc.constantFrom("done", "abandoned", "todo")), outcome: maybe(oddText) }, { requiredKeys: [] }),
  view_historical_plans: fc.record({}, { requiredKeys: [] }),
  recover_historical_plan: fc.record({ plan_id: maybe(oddText) }, { requiredKeys: [] }),
  TaskCreate: fc.record({ subject: maybe(oddText), description: maybe(oddText), metadata: maybe(fc.dictionary(fc.string(), fc.jsonValue())) }, { requiredKeys: [] }),
  TaskGet: fc.record({ task_id: maybe(fc.constantFrom("1", "2", "3", "4", "0", "99", "-1")) }, { requiredKeys: [] }),
  TaskList: fc.record({}, { requiredKeys: [] }),
  TaskUpdate: fc.record(
    {
      task_id: maybe(fc.constantFrom("1", "2", "3", "4", "99")),
      subject: maybe(oddText),
      status: maybe(fc.constantFrom("pending", "in_progress", "completed", "deleted", "blocked")),
      owner: maybe(oddText),
      add_blocks: maybe(fc.array(fc.constantFrom("1", "2", "3", "4", "99", ""), { maxLength: 3 })),
      add_blocked_by: maybe(fc.array(fc.constantFrom("1", "2", "3", "4", "99", ""), { maxLength: 3 })),
      metadata: maybe(fc.dictionary(fc.string(), fc.oneof(fc.jsonValue(), fc.constant(null)))),
    },
    { requiredKeys: [] },
  ),
  write_todos: fc.record(
    {
      todos: maybe(
        fc.array(
          fc.record(
            { content: maybe(oddText), status: maybe(fc.constantFrom("pending", "in_progress", "completed", "done")), id: maybe(fc.constantFrom("1", "2", "3", "9")) },
            { requiredKeys: [] },
          ),
          { maxLength: 5 },
        ),
      ),
      updates: maybe(
        fc.array(fc.record({ id: maybe(fc.constantFrom("1", "2", "3", "9")), status: maybe(fc.constantFrom("pending", "in_progress", "completed")) }, { requiredKeys: [] }), {
          maxLength: 3,
        }),
      ),
    },
    { requiredKeys: [] },
  ),
  read_file: fc.record({ path: maybe(fc.constantFrom("a.txt", "dir/b.md", "missing", "..", "/etc/passwd", "dir", "")), offset: maybe(oddNumber), limit: maybe(oddNumber) }, { requiredKeys: [] }),
  list_dir: fc.record({ path: maybe(fc.constantFrom(".", "dir", "a.txt", "..", "/")), recursive: maybe(fc.boolean()) }, { requiredKeys: [] }),
  search: fc.record({ pattern: maybe(fc.constantFrom("a", "(", "[", ".*", "\\")), regex: maybe(fc.boolean()), path: maybe(fc.constantFrom(".", "dir", "..")) }, { requiredKeys: [] }),
  write_file: fc.record({ path: maybe(fc.constantFrom("new.txt", "dir/c.txt", "dir", "../x", "")), content: maybe(oddText) }, { requiredKeys: [] }),
  edit_file: fc.record(
    { path: maybe(fc.constantFrom("a.txt", "dir/b.md", "missing")), old_text: maybe(fc.constantFrom("alpha", "", "zzz")), new_text: maybe(oddText), replace_all: maybe(fc.boolean()) },
    { requiredKeys: [] },
  ),
  recall: fc.record({ unit: maybe(fc.constantFrom("1", "u1", "")), call_id: maybe(oddText) }, { requiredKeys: [] }),
};

/** Near-valid arguments with extra fields; nested JSON text; raw text; any value at all. */
function argumentsFor(tool: string): fc.Arbitrary<unknown> {
  const near = NEAR_VALID[tool] ?? fc.constant({});
  return fc.oneof(
    { weight: 4, arbitrary: near },
    { weight: 1, arbitrary: fc.tuple(near, fc.dictionary(fc.string(), junk, { maxKeys: 3 })).map(([a, extra]) => ({ ...extra, ...a })) },
    { weight: 1, arbitrary: near.map((a) => JSON.stringify(a)) },
    { weight: 1, arbitrary: near.map((a) => Object.fromEntries(Object.entries(a).map(([k, v]) => [k, JSON.stringify(v)]))) },
    { weight: 1, arbitrary: fc.oneof(oddText, fc.constantFrom("{not json", "[1,2]", '"text"', "42", "{\"subtask_idx\": }")) },
    { weight: 1, arbitrary: junk },
  );
}

// ---- invariants ----------------------------------------------------------------------------------

const SUBTASK_STATES = ["todo", "in_progress", "done", "abandoned"];
const PLAN_STATES = ["todo", "in_progress", "done", "abandoned"];

async function notebookProblems(notebook: PlanNotebook, seen: Set<string>): Promise<string[]> {
  const problems: string[] = [];
  const plan = notebook.currentPlan;
  if (plan) {
    if (plan.subtasks.filter((s) => s.state === "in_progress").length > 1) problems.push("two subtasks in progress");
    if (plan.subtasks.some((s) => !SUBTASK_STATES.includes(s.state))) problems.push("illegal subtask state");
    if (!PLAN_STATES.includes(plan.state)) problems.push("illegal plan state");
    if (plan.subtasks.length === 0) problems.push("plan without subtasks");
  }
  const ids = new Set([...(plan ? [plan.id] : []), ...(await notebook.historicalPlans()).map((p) => p.id)]);
  for (const id of seen) if (!ids.has(id)) problems.push(`plan ${id} lost from history`);
  for (const id of ids) seen.add(id);
  return problems;
}

async function boardProblems(board: TaskBoard): Promise<string[]> {
  const tasks = await board.list();
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const problems: string[] = [];
  for (const task of tasks) {
    if (!["pending", "in_progress", "completed"].includes(task.state)) problems.push(`task ${task.id} state ${task.state}`);
    for (const other of task.blocks) {
      if (!byId.has(other)) problems.push(`task ${task.id} blocks missing ${other}`);
      else if (!byId.get(other)!.blockedBy.includes(task.id)) problems.push(`edge ${task.id}->${other} one-sided`);
    }
    for (const other of task.blockedBy) {
      if (!byId.has(other)) problems.push(`task ${task.id} blocked by missing ${other}`);
      else if (!byId.get(other)!.blocks.includes(task.id)) problems.push(`edge ${other}->${task.id} one-sided`);
    }
  }
  return problems;
}

function todoProblems(todos: TodoList): string[] {
  return todos.todos.flatMap((t) => (["pending", "in_progress", "completed"].includes(t.status) && typeof t.content === "string" ? [] : [`bad todo ${JSON.stringify(t)}`]));
}

/**
 * An error the model can act on names what was wrong: a schema error lists argument paths, a JSON
 * error says so, a rule error is the tool's own sentence. `Tool "x" failed: …` means an unexpected
 * exception inside the tool: that counts as an escape.
 */
function unusable(result: ToolResult): string | null {
  if (typeof result?.text !== "string" || typeof result.isError !== "boolean") return "not a ToolResult";
  if (!result.isError) return null;
  if (result.text.trim() === "") return "empty error";
  if (/^Tool "[^"]+" failed:/.test(result.text)) return result.text.slice(0, 200);
  if (result.text.startsWith("Invalid arguments") && !/^- [^\n]+: /m.test(result.text)) return "schema error names no argument";
  return null;
}

async function invokeCounted(tool: Tool, args: unknown): Promise<void> {
  callsTried++;
  let result: ToolResult;
  try {
    result = await tool.invoke(args);
  } catch (error) {
    escapes++;
    escapeSamples.push(`${tool.name} threw ${String(error)}`);
    return;
  }
  const problem = unusable(result);
  if (problem) {
    escapes++;
    escapeSamples.push(`${tool.name}(${JSON.stringify(args)?.slice(0, 200)}): ${problem}`);
  }
}

const callsOf = (tools: Tool[]) =>
  fc.array(
    fc.constantFrom(...tools.map((t) => t.name)).chain((name) => argumentsFor(name).map((args) => ({ name, args }))),
    { minLength: 1, maxLength: 25 },
  );

describe("fuzzed tool input: no exception escapes, errors are actionable, state stays valid", () => {
  it("the eight plan notebook tools", async () => {
    const names = new PlanNotebook().tools();
    expect(names).toHaveLength(8);
    await fc.assert(
      fc.asyncProperty(callsOf(names), async (calls) => {
        const notebook = new PlanNotebook({ maxSubtasks: 6 });
        const seen = new Set<string>();
        for (const { name, args } of calls) {
          await invokeCounted(notebook.tools().find((t) => t.name === name)!, args);
          expect(await notebookProblems(notebook, seen)).toEqual([]);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it("the task board tools", async () => {
    await fc.assert(
      fc.asyncProperty(callsOf(new TaskBoard().tools()), async (calls) => {
        const board = new TaskBoard({ agentName: "fuzzer" });
        for (const { name, args } of calls) {
          await invokeCounted(board.tools().find((t) => t.name === name)!, args);
          expect(await boardProblems(board)).toEqual([]);
        }
      }),
      { numRuns: RUNS },
    );
  });

  for (const ids of [false, true]) {
    it(`write_todos ${ids ? "with" : "without"} ids`, async () => {
      await fc.assert(
        fc.asyncProperty(callsOf(todoList({ ids }).tools!()), async (calls) => {
          const todos = todoList({ ids, checkTransitions: ids });
          for (const { args } of calls) {
            await invokeCounted(todos.tools!()[0]!, args);
            expect(todoProblems(todos)).toEqual([]);
          }
        }),
        { numRuns: RUNS },
      );
    });
  }

  it("the workspace tools and recall", async () => {
    const ws = tempWorkspace({ "a.txt": "alpha\nbeta\n", "dir/b.md": "# b\nalpha\n" });
    try {
      const tools = ["read_file", "list_dir", "search", "write_file", "edit_file"].map((name) => ws.tool(name));
      const recall = contextFolding().tools!()[0]!;
      expect(recall.name).toBe("recall");
      await fc.assert(
        fc.asyncProperty(callsOf([...tools, recall]), async (calls) => {
          for (const { name, args } of calls) await invokeCounted([...tools, recall].find((t) => t.name === name)!, args);
          expect(ws.snapshot(ws.outside)).toEqual({});
        }),
        { numRuns: RUNS },
      );
    } finally {
      ws.remove();
    }
  });

  afterAll(() => {
    expect(escapeSamples.slice(0, 5)).toEqual([]);
    expect(escapes).toBe(0);
  });
});

/**
 * Deep nesting and huge arguments, in every form a call can take (JSON text of objects or arrays,
 * JSON text inside a string argument, an object built by a caller), sent to every model-facing tool:
 * each is answered or refused with a result, never a throw; refusals name the limit.
 */
describe("deepest and largest arguments", () => {
  const DEPTHS = [1, MAX_ARGUMENT_DEPTH - 1, MAX_ARGUMENT_DEPTH, MAX_ARGUMENT_DEPTH + 1, 1_000, 100_000, 1_000_000];
  const objects = (levels: number) => '{"a":'.repeat(levels - 1) + "{}" + "}".repeat(levels - 1);
  const arrays = (levels: number) => "[".repeat(levels) + "]".repeat(levels);
  const built = (levels: number) => {
    let value: unknown = {};
    for (let i = 1; i < levels; i++) value = { a: value };
    return value;
  };
  /** Each form puts `levels` of nesting under one key of the arguments object: one level more in all. */
  const forms = (key: string, levels: number): [string, unknown][] => [
    ["object text", `{"${key}":${objects(levels)}}`],
    ["array text", `{"${key}":${arrays(levels)}}`],
    ["text in a string", { [key]: objects(levels) }],
    ["built object", { [key]: built(levels) }],
  ];

  it("every tool answers every depth and size with a result, refusing past the limits", async () => {
    const ws = tempWorkspace({ "a.txt": "alpha\n" });
    let calls = 0;
    const thrown: string[] = [];
    let deepestRefused = 0;
    let deepestAccepted = 0;
    let largestRefused = 0;
    try {
      const notebook = new PlanNotebook();
      const board = new TaskBoard({ agentName: "deep" });
      const tools = [
        ...notebook.tools(),
        ...board.tools(),
        ...todoList().tools!(),
        ...["read_file", "list_dir", "search", "write_file", "edit_file"].map((name) => ws.tool(name)),
        ...contextFolding().tools!(),
      ];
      const attempt = async (tool: Tool, args: unknown): Promise<ToolResult | undefined> => {
        calls++;
        try {
          const result = await tool.invoke(args);
          expect(unusable(result)).toBeNull();
          return result;
        } catch (error) {
          thrown.push(`${tool.name} threw ${String(error).slice(0, 200)}`);
          return undefined;
        }
      };
      for (const tool of tools) {
        // metadata takes any JSON, so there a deep value within the limit is accepted, not just parsed.
        const key = tool.name === "TaskCreate" ? "metadata" : "subtask";
        for (const levels of DEPTHS) {
          for (const [form, args] of forms(key, levels)) {
            const full = tool.name === "TaskCreate" && typeof args === "object" ? { subject: "s", description: "d", ...args } : args;
            const result = await attempt(tool, full);
            const refusedForDepth = result?.text.includes(`more than`) && result.text.includes("levels");
            // Text inside a string is only parsed where an object is expected (revise_current_plan's subtask).
            const parsed = form !== "text in a string" || tool.name === "revise_current_plan";
            if (levels + 1 > MAX_ARGUMENT_DEPTH && parsed) {
              expect(refusedForDepth || result?.text.includes("characters long"), `${tool.name} ${form} ${levels}`).toBe(true);
              deepestRefused = Math.max(deepestRefused, levels + 1);
            } else {
              expect(refusedForDepth, `${tool.name} ${form} ${levels}`).toBe(false);
              if (tool.name === "TaskCreate" && form === "built object" && result?.isError === false) deepestAccepted = Math.max(deepestAccepted, levels + 1);
            }
          }
        }
        for (const length of [MAX_ARGUMENT_CHARS, MAX_ARGUMENT_CHARS * 2]) {
          const text = `{"content":"${"x".repeat(length - 15)}"}`;
          const result = await attempt(tool, text);
          if (text.length > MAX_ARGUMENT_CHARS) {
            expect(result?.text).toContain("characters long");
            largestRefused = Math.max(largestRefused, text.length);
          } else expect(result?.text ?? "").not.toContain("characters long");
        }
      }

      // A whole run with every planning plugin: the model's deepest call is answered, the run ends.
      const model = scriptedModel([
        { toolCalls: [{ name: "TaskCreate", arguments: `{"subject":"s","description":"d","metadata":{"x":${arrays(1_000_000)}}}` }] },
        "gave up",
      ]);
      const agent = new Agent({ model, plugins: [new PlanNotebook(), new TaskBoard(), todoList(), contextFolding()] });
      expect(await agent.run("go")).toMatchObject({ text: "gave up", stopReason: "final" });
      const answer = model.requests[1]?.messages.find((m) => m.role === "tool");
      expect(answer?.content).toContain(`more than ${MAX_ARGUMENT_DEPTH} levels`);
    } finally {
      ws.remove();
    }
    const mb = (chars: number) => `${(chars / 1_000_000).toFixed(1)} MB`;
    recordFigure(
      "1-fuzz-deep",
      `deepest argument handled ${deepestRefused.toLocaleString("en-US")} levels (${mb(arrays(deepestRefused).length)} as arrays) refused cleanly, ` +
        `${deepestAccepted} levels accepted, ${mb(largestRefused)} refused for size; ${calls} calls, throws ${thrown.length}`,
    );
    expect(thrown.slice(0, 5)).toEqual([]);
    expect(deepestAccepted).toBe(MAX_ARGUMENT_DEPTH);
  });
});
