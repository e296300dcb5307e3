// The todo list in context: one scripted 40-turn task (8 todo items, tool calls between updates)
// through Stepwise's todoList and through LangChain.js's todoListMiddleware, with the same system
// prompt and the same tools. Both models do the same work: the same calls, the same items, the same
// status changes, in the same order (`taskScript`). Each stands for a model that follows its own
// write_todos description, so a list change is written the way that tool asks: LangChain's whole
// list every time, Stepwise's list once in `todos` and then only the changed statuses by id in
// `updates`. Every request each model receives is captured, rendered the same way, and measured
// with the o200k tokenizer.
import { fakeModel } from "@langchain/core/testing";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { AIMessage, createAgent, HumanMessage, todoListMiddleware, tool, type AnyAgentMiddleware, type BaseMessage } from "langchain";
import { z } from "zod";
import { Agent } from "../src/core/agent.js";
import type { Message } from "../src/core/messages.js";
import type { ChatModel, ModelRequest, ToolSpec } from "../src/core/model.js";
import { defineTool } from "../src/core/tool.js";
import { scriptedModel } from "../src/models/scripted.js";
import { todoList, type TodoList } from "../src/planning/todos/todo-list.js";
import { TODOS_SAVED } from "../src/planning/todos/write-todos-tool.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import { countTokens } from "./tokens.js";

const BENCH = "todo-context";
const SYSTEM_PROMPT =
  "You are a coding agent in a TypeScript repository. Inspect and change files with the tools, and report what you did when the task is done.";
const TASK =
  "Move every module under src/ from the legacy logger (src/legacy/logger.ts) to the structured logger (src/log/structured.ts), keep the tests passing, and tell me what changed.";
const AREAS = ["http/server", "http/routes", "db/pool", "db/migrations", "jobs/queue", "jobs/worker", "cache/redis", "cli/main"];
/** Work turns between two list updates, per item: 30 in all, so 1 + 30 + 8 + 1 = 40 model turns. */
const WORK_TURNS = [4, 4, 4, 4, 4, 4, 3, 3];
const TIMING_RUNS = 7;

type Call = { id: string; name: string; args: Record<string, unknown> };
type Turn = { calls: Call[] } | { answer: string };
type Todo = { content: string; status: "pending" | "in_progress" | "completed" };

// ---- the shared scenario: tools, their results, the model's turns --------------------------------

const readFileSchema = z.object({ path: z.string().describe("Path from the repository root") });
const editFileSchema = z.object({
  path: z.string().describe("Path from the repository root"),
  old_text: z.string().describe("Exact text to replace"),
  new_text: z.string().describe("Replacement text"),
});
const READ_FILE = { name: "read_file", description: "Read a text file of the repository and return its contents." };
const EDIT_FILE = { name: "edit_file", description: "Replace one exact occurrence of old_text with new_text in a file." };

function fileContents(path: string): string {
  const name = path.replace(/\W+/g, "_");
  const lines = [`import { log } from "../legacy/logger.js";`, `import { config } from "../config.js";`, ""];
  for (let i = 1; i <= 6; i++) {
    lines.push(
      `export async function ${name}_step${i}(input: Record<string, unknown>): Promise<void> {`,
      `  log.info("${path}: step ${i} started", { size: Object.keys(input).length, env: config.env });`,
      `  if (!input["ok"]) log.warn("${path}: step ${i} got a partial input");`,
      "}",
    );
  }
  return lines.join("\n");
}

function editResult(path: string): string {
  return `Edited ${path}: 1 replacement.`;
}

function todosAt(done: number): Todo[] {
  return AREAS.map((area, i) => ({
    content: `Migrate src/${area}.ts to the structured logger`,
    status: i < done ? "completed" : i === done ? "in_progress" : "pending",
  }));
}

/** One model turn of the task: a work call, a new state of the todo list, or the final answer. */
type Step = { work: Omit<Call, "id"> } | { list: Todo[] } | { answer: string };

/**
 * The task both systems carry out, one model turn per step: the same work calls, the same todo
 * items, the same status changes, in the same order. Only how a list change is written differs,
 * because each model follows its own tool's description (see `langchainWrite` and `stepwiseWrite`).
 */
function taskScript(): Step[] {
  const steps: Step[] = [{ list: todosAt(0) }];
  AREAS.forEach((area, item) => {
    const source = `src/${area}.ts`;
    const test = `src/${area}.test.ts`;
    const work: Step[] = [
      { work: { name: "read_file", args: { path: source } } },
      { work: { name: "edit_file", args: { path: source, old_text: `import { log } from "../legacy/logger.js";`, new_text: `import { log } from "../log/structured.js";` } } },
      { work: { name: "read_file", args: { path: test } } },
      { work: { name: "edit_file", args: { path: test, old_text: "legacy/logger", new_text: "log/structured" } } },
    ];
    steps.push(...work.slice(0, WORK_TURNS[item]), { list: todosAt(item + 1) });
  });
  steps.push({ answer: `All ${AREAS.length} modules now log through src/log/structured.ts; each module and its test were updated.` });
  return steps;
}

/** write_todos arguments for a change of the list from `before` (none yet) to `after`. */
type ListWrite = (before: Todo[] | undefined, after: Todo[]) => Record<string, unknown>;

/** LangChain's write_todos takes only `todos`, and its description asks for the whole list on every change. */
const langchainWrite: ListWrite = (_before, after) => ({ todos: after });

/**
 * Stepwise's description asks for the list in `todos` once, then only the items that change, by id,
 * in `updates`. Ids count from 1 in the order the items were first written, as the recitation shows
 * them; `runStepwise` checks every write was applied and the list ended as the script's.
 */
const stepwiseWrite: ListWrite = (before, after) => {
  if (before === undefined) return { todos: after };
  if (before.length !== after.length || before.some((todo, i) => todo.content !== after[i]?.content)) {
    throw new Error("todo-context bench: the task script only changes statuses; a changed item list needs `todos` with ids.");
  }
  const updates = Object.fromEntries(after.flatMap((todo, i) => (todo.status === before[i]?.status ? [] : [[String(i + 1), todo.status]])));
  return { updates };
};

/** A system's model turns for the task: its work calls as scripted, its list changes written its way. */
function turnsOf(script: readonly Step[], write: ListWrite): Turn[] {
  let next = 0;
  let list: Todo[] | undefined;
  return script.map((step): Turn => {
    if ("answer" in step) return step;
    const id = `call_${++next}`;
    if ("work" in step) return { calls: [{ id, ...step.work }] };
    const args = write(list, step.list);
    list = step.list;
    return { calls: [{ id, name: "write_todos", args }] };
  });
}

/** The list the agent holds when each request is sent (none before the first write): the script's, not either system's. */
function listsAtRequests(script: readonly Step[]): (Todo[] | undefined)[] {
  let list: Todo[] | undefined;
  return script.map((step) => {
    const held = list;
    if ("list" in step) list = step.list;
    return held;
  });
}

// ---- the two systems ------------------------------------------------------------------------------

function stepwiseAgent(model: ChatModel, todos: TodoList = todoList()): Agent {
  const tools = [
    defineTool({ ...READ_FILE, parameters: readFileSchema, readOnly: true, execute: ({ path }) => fileContents(path) }),
    defineTool({ ...EDIT_FILE, parameters: editFileSchema, execute: ({ path }) => editResult(path) }),
  ];
  return new Agent({ systemPrompt: SYSTEM_PROMPT, model, tools, plugins: [todos], maxSteps: 100 });
}

/** An instant model without request copies, so timing measures the framework alone. */
function instantStepwiseModel(turns: Turn[]): ChatModel {
  let index = 0;
  return {
    id: "instant",
    async generate() {
      const turn = turns[index++] as Turn;
      if ("answer" in turn) return { message: { role: "assistant", content: turn.answer } };
      const toolCalls = turn.calls.map((c) => ({ id: c.id, name: c.name, arguments: JSON.stringify(c.args) }));
      return { message: { role: "assistant", content: "", toolCalls } };
    },
  };
}

function toScriptedTurn(turn: Turn) {
  return "answer" in turn ? turn.answer : { toolCalls: turn.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.args })) };
}

/** Runs Stepwise's turns, and checks that its list followed the script: every write applied, the same list at the end. */
async function runStepwise(turns: Turn[], finalList: readonly Todo[]): Promise<ModelRequest[]> {
  const model = scriptedModel(turns.map(toScriptedTurn));
  const todos = todoList();
  await stepwiseAgent(model, todos).run(TASK);
  const results = (model.requests.at(-1)?.messages ?? []).filter((m) => m.role === "tool" && m.name === "write_todos");
  const refused = results.find((m) => m.content !== TODOS_SAVED);
  if (refused) throw new Error(`todo-context bench: Stepwise refused a scripted write_todos call: ${refused.content}`);
  if (JSON.stringify(todos.todos) !== JSON.stringify(finalList)) {
    throw new Error(`todo-context bench: Stepwise ended with ${JSON.stringify(todos.todos)}, not the script's list.`);
  }
  return model.requests;
}

function toAIMessage(turn: Turn): AIMessage {
  if ("answer" in turn) return new AIMessage(turn.answer);
  return new AIMessage({ content: "", tool_calls: turn.calls.map((c) => ({ ...c, type: "tool_call" as const })) });
}

/** LangChain's agent with LangChain's fake model answering the same turns; `record` sees each request. */
function langchainAgent(turns: Turn[], record?: (messages: BaseMessage[], tools: unknown[]) => void) {
  const model = fakeModel();
  let boundTools: unknown[] = [];
  if (record) {
    const bindTools = model.bindTools.bind(model);
    model.bindTools = (tools) => {
      boundTools = tools;
      return bindTools(tools);
    };
  }
  for (const turn of turns) {
    const message = toAIMessage(turn);
    model.respond(
      record
        ? (messages) => {
            record(messages, boundTools);
            return message;
          }
        : message,
    );
  }
  const tools = [
    tool(({ path }) => fileContents(path), { ...READ_FILE, schema: readFileSchema }),
    tool(({ path }) => editResult(path), { ...EDIT_FILE, schema: editFileSchema }),
  ];
  // LangChain's middleware types do not compile under exactOptionalPropertyTypes; the value is fine.
  const middleware = [todoListMiddleware() as unknown as AnyAgentMiddleware];
  const agent = createAgent({ model, tools, systemPrompt: SYSTEM_PROMPT, middleware });
  // Each model turn and each tool turn is a graph step; leave room for all of them.
  return () => agent.invoke({ messages: [new HumanMessage(TASK)] }, { recursionLimit: 4 * turns.length + 10 });
}

async function runLangchain(turns: Turn[]): Promise<ModelRequest[]> {
  const requests: ModelRequest[] = [];
  const run = langchainAgent(turns, (messages, tools) => {
    requests.push({ messages: messages.map(fromLangchain), tools: tools.map(toToolSpec) });
  });
  await run();
  return requests;
}

function textOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : message.text;
}

function fromLangchain(message: BaseMessage): Message {
  if (AIMessage.isInstance(message)) {
    const calls = message.tool_calls ?? [];
    const toolCalls = calls.map((c) => ({ id: c.id ?? "", name: c.name, arguments: JSON.stringify(c.args) }));
    return toolCalls.length > 0 ? { role: "assistant", content: textOf(message), toolCalls } : { role: "assistant", content: textOf(message) };
  }
  const type = message.getType();
  if (type === "system") return { role: "system", content: textOf(message) };
  if (type === "human") return { role: "user", content: textOf(message) };
  if (type === "tool") {
    const toolMessage = message as BaseMessage & { tool_call_id: string; name?: string };
    return { role: "tool", content: textOf(message), toolCallId: toolMessage.tool_call_id, name: toolMessage.name ?? "" };
  }
  throw new Error(`todo-context bench: unexpected LangChain message type "${type}".`);
}

function toToolSpec(boundTool: unknown): ToolSpec {
  const { function: fn } = convertToOpenAITool(boundTool as Parameters<typeof convertToOpenAITool>[0]);
  return { name: fn.name, description: fn.description ?? "", parameters: fn.parameters };
}

// ---- measuring ------------------------------------------------------------------------------------

/** One rendering for both systems: tools first, then messages, as providers order a prompt. */
function render(request: ModelRequest): string {
  const tools = request.tools.map((spec) => JSON.stringify(spec));
  const messages = request.messages.map((m) => {
    const calls = m.role === "assistant" ? (m.toolCalls ?? []).map((c) => `\n<call ${c.name}>${c.arguments}`).join("") : "";
    return `<|${m.role}|>${m.content}${calls}`;
  });
  return [...tools, ...messages].join("\n");
}

function commonPrefixLength(a: string, b: string): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** Planning text the framework puts in a request: its tool, its system addition, recitations, acknowledgements. */
function planningTokens(request: ModelRequest): number {
  let tokens = 0;
  for (const spec of request.tools) if (spec.name === "write_todos") tokens += countTokens(JSON.stringify(spec));
  for (const message of request.messages) {
    if (message.role === "system") tokens += countTokens(message.content) - countTokens(SYSTEM_PROMPT);
    else if (message.role === "user" && message.content !== TASK) tokens += countTokens(message.content);
    else if (message.role === "tool" && message.name === "write_todos") tokens += countTokens(message.content);
  }
  return tokens;
}

/**
 * The size of each planning prompt as the model receives it: the write_todos tool (description and
 * schema), what the framework adds to the system prompt, and the largest list recited at the tail.
 */
function promptSizes(requests: readonly ModelRequest[]): { tool: number; system: number; recitation: number } {
  const last = requests.at(-1) as ModelRequest;
  const spec = last.tools.find((s) => s.name === "write_todos");
  const system = last.messages.find((m) => m.role === "system");
  const recitations = requests.map((req) => req.messages.at(-1)).filter((m) => m?.role === "user" && m.content !== TASK);
  return {
    tool: spec ? countTokens(JSON.stringify(spec)) : 0,
    system: system ? countTokens(system.content) - countTokens(SYSTEM_PROMPT) : 0,
    recitation: Math.max(0, ...recitations.map((m) => countTokens(m?.content ?? ""))),
  };
}

/**
 * How much of each request the next one repeats as its prefix, which is what a provider's prompt cache
 * can serve. `ofTokens` is the share of all tokens sent that the next request reused: a cache saves
 * per token, so this is the figure. It replaced the mean of the per-request shares, kept here as
 * `requestMean`, which weighs the 600-token second request as much as the 10,000-token last one; early
 * requests lose the most to the recitation at the tail, and they are the ones under the 1,024 tokens
 * OpenAI and Anthropic need before they cache a prompt at all.
 */
function prefixReuse(texts: readonly string[], sizes: readonly number[]): { ofTokens: number; requestMean: number } {
  let reused = 0;
  let sent = 0;
  let shares = 0;
  for (let i = 0; i + 1 < texts.length; i++) {
    const a = texts[i] as string;
    const prefix = countTokens(a.slice(0, commonPrefixLength(a, texts[i + 1] as string)));
    reused += prefix;
    sent += sizes[i] as number;
    shares += prefix / (sizes[i] as number);
  }
  return { ofTokens: reused / sent, requestMean: shares / (texts.length - 1) };
}

/** `lists[i]` is the list the agent holds when request i is sent (see `listsAtRequests`). */
function measure(system: string, requests: ModelRequest[], lists: readonly (Todo[] | undefined)[], cost: StepCost): BenchFigure[] {
  const texts = requests.map(render);
  const sizes = texts.map(countTokens);
  const reuse = prefixReuse(texts, sizes);
  // Read from the script, not from the last write's arguments: a patch by id does not hold the list.
  const afterFirstWrite = requests.map((req, i) => ({ req, list: lists[i] })).filter(({ list }) => list !== undefined);
  const atTail = afterFirstWrite.filter(({ req, list }) => {
    const last = req.messages.at(-1)?.content ?? "";
    return (list ?? []).every((todo) => last.includes(todo.content));
  });
  const figure = (metric: string, value: number): BenchFigure => ({ bench: BENCH, metric, system, value });
  const prompts = promptSizes(requests);
  return [
    figure("tool_prompt_tokens", prompts.tool),
    figure("system_prompt_addition_tokens", prompts.system),
    figure("recitation_tokens", prompts.recitation),
    figure("prompt_tokens", sizes.reduce((sum, n) => sum + n, 0)),
    figure("planning_tokens", requests.reduce((sum, req) => sum + planningTokens(req), 0)),
    figure("tail_share", round(atTail.length / afterFirstWrite.length)),
    figure("prefix_reuse", round(reuse.ofTokens)),
    figure("prefix_reuse_request_mean", round(reuse.requestMean)),
    figure("overhead_us_per_step", Math.round(cost.wallUs)),
    figure("cpu_us_per_step", Math.round(cost.cpuUs)),
  ];
}

type StepCost = { wallUs: number; cpuUs: number };

/**
 * Median cost of whole runs with an instant model, per model step, in microseconds: wall time (what
 * a user waits) and CPU time of this process (wall time also counts the loop waiting on timers).
 */
async function costPerStep(steps: number, makeRun: () => () => Promise<unknown>): Promise<StepCost> {
  await makeRun()(); // warm-up: module initialisation and JIT
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < TIMING_RUNS; i++) {
    const run = makeRun();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await run();
    wall.push((performance.now() - started) * 1000);
    const { user, system } = process.cpuUsage(cpuBefore);
    cpu.push(user + system);
  }
  return { wallUs: median(wall) / steps, cpuUs: median(cpu) / steps };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

export const todoContextBenchmark: Benchmark = {
  name: BENCH,
  async run() {
    const script = taskScript();
    const lists = listsAtRequests(script);
    const stepwiseTurns = turnsOf(script, stepwiseWrite);
    const langchainTurns = turnsOf(script, langchainWrite);
    const stepwise = await runStepwise(stepwiseTurns, todosAt(AREAS.length));
    const langchain = await runLangchain(langchainTurns);
    for (const [system, requests] of [["stepwise", stepwise], ["langchain", langchain]] as const) {
      if (requests.length !== script.length) {
        throw new Error(`todo-context bench: ${system} made ${requests.length} model calls for ${script.length} scripted turns.`);
      }
    }
    const stepwiseCost = await costPerStep(script.length, () => {
      const agent = stepwiseAgent(instantStepwiseModel(stepwiseTurns));
      return () => agent.run(TASK);
    });
    const langchainCost = await costPerStep(script.length, () => langchainAgent(langchainTurns));
    return [...measure("stepwise", stepwise, lists, stepwiseCost), ...measure("langchain", langchain, lists, langchainCost)];
  },
};
