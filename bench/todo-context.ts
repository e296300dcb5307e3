// The todo list in context: one scripted task (8 todo items, 30 work calls, 9 list changes, an
// answer) through Stepwise's todoList and through LangChain.js's todoListMiddleware, with the same
// system prompt and the same tools. Both models do the same work: the same calls, the same items,
// the same status changes, in the same order (`taskScript`). Each stands for a model that follows
// its own write_todos description, so a list change is written the way that tool asks: LangChain's
// whole list every time, in a turn of its own (40 model turns); Stepwise's list once in `todos`
// and then only the changed statuses by id in `updates`, in the same turn as the call that starts
// the next step (32 turns). Two more runs show what that choice and the recitation are worth:
// LangChain's model writing in the same turns as Stepwise's ("langchain-same-turns"), and Stepwise
// reciting the list at the tail of every request ("stepwise-every-call"). Every request each model
// receives is captured, rendered the same way, tokenized with o200k, and priced as the providers'
// prompt caches bill it; the plain conversation (the same work without any planning part) is priced
// the same way, so that cache_cost − plain_cache_cost is what the planning layer adds.
import { fakeModel } from "@langchain/core/testing";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { AIMessage, createAgent, HumanMessage, todoListMiddleware, tool, type AnyAgentMiddleware, type BaseMessage } from "langchain";
import { z } from "zod";
import { Agent } from "../src/core/agent.js";
import type { Message } from "../src/core/messages.js";
import type { ChatModel, ModelRequest, ToolSpec } from "../src/core/model.js";
import { defineTool } from "../src/core/tool.js";
import { scriptedModel, type ScriptedTurn } from "../src/models/scripted.js";
import { todoList, type TodoList } from "../src/planning/todos/todo-list.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import { countTokens, tokenize } from "./tokens.js";

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

/**
 * A system's model turns for the task, its work calls as scripted and its list changes written its
 * way; with `sameTurn`, a list change goes out with the work call that follows it, in one turn. Also
 * the list the agent holds when each turn's request is sent (none before the first write): the
 * script's, not either system's.
 */
function turnsOf(script: readonly Step[], write: ListWrite, opts: { sameTurn: boolean } = { sameTurn: false }): { turns: Turn[]; lists: (Todo[] | undefined)[] } {
  let next = 0;
  let list: Todo[] | undefined;
  const turns: Turn[] = [];
  const lists: (Todo[] | undefined)[] = [];
  let pending: Call | undefined;
  for (const step of script) {
    if ("list" in step) {
      if (pending) throw new Error("todo-context bench: two list changes in a row");
      lists.push(list);
      pending = { id: `call_${++next}`, name: "write_todos", args: write(list, step.list) };
      list = step.list;
      if (!opts.sameTurn) {
        turns.push({ calls: [pending] });
        pending = undefined;
      }
      continue;
    }
    const calls = pending ? [pending] : [];
    if (!pending) lists.push(list);
    pending = undefined;
    if ("answer" in step) {
      // A change of the list cannot go out with the answer (a turn with calls is not one): its own turn first.
      if (calls.length > 0) {
        turns.push({ calls });
        lists.push(list);
      }
      turns.push(step);
    } else turns.push({ calls: [...calls, { id: `call_${++next}`, ...step.work }] });
  }
  return { turns, lists };
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

/**
 * A request as the model received it, and how many of its messages come before the ephemeral tail
 * (`stored`): where the Anthropic adapter puts its last cache breakpoint. A system without an
 * ephemeral tail (LangChain, a plain agent) stores the whole request.
 */
type Captured = { request: ModelRequest; stored: number };

/** A scripted model that also keeps where each request's ephemeral tail began. */
function capturingModel(turns: ScriptedTurn[]): ChatModel & { captured: () => Captured[] } {
  const model = scriptedModel(turns);
  const stored: number[] = [];
  return {
    id: model.id,
    generate(req) {
      stored.push(req.ephemeralFrom ?? req.messages.length);
      return model.generate(req);
    },
    captured: () => model.requests.map((request, i) => ({ request, stored: stored[i] ?? request.messages.length })),
  };
}

/** Runs Stepwise's turns, and checks that its list followed the script: every write applied, the same list at the end. */
async function runStepwise(turns: Turn[], finalList: readonly Todo[], todos: TodoList = todoList()): Promise<Captured[]> {
  const model = capturingModel(turns.map(toScriptedTurn));
  await stepwiseAgent(model, todos).run(TASK);
  const captured = model.captured();
  const results = (captured.at(-1)?.request.messages ?? []).filter((m) => m.role === "tool" && m.name === "write_todos");
  const refused = results.find((m) => m.content.startsWith("Not applied"));
  if (refused) throw new Error(`todo-context bench: Stepwise refused a scripted write_todos call: ${refused.content}`);
  if (JSON.stringify(todos.todos) !== JSON.stringify(finalList)) {
    throw new Error(`todo-context bench: Stepwise ended with ${JSON.stringify(todos.todos)}, not the script's list.`);
  }
  return captured;
}

/** The plain conversation: the same work turns through Stepwise's agent with no planning part at all. */
async function runPlainStepwise(turns: Turn[]): Promise<Captured[]> {
  const model = capturingModel(turns.map(toScriptedTurn));
  const tools = [
    defineTool({ ...READ_FILE, parameters: readFileSchema, readOnly: true, execute: ({ path }) => fileContents(path) }),
    defineTool({ ...EDIT_FILE, parameters: editFileSchema, execute: ({ path }) => editResult(path) }),
  ];
  await new Agent({ systemPrompt: SYSTEM_PROMPT, model, tools, maxSteps: 100 }).run(TASK);
  return model.captured();
}

function toAIMessage(turn: Turn): AIMessage {
  if ("answer" in turn) return new AIMessage(turn.answer);
  return new AIMessage({ content: "", tool_calls: turn.calls.map((c) => ({ ...c, type: "tool_call" as const })) });
}

/** LangChain's agent with LangChain's fake model answering the same turns; `record` sees each request. */
function langchainAgent(turns: Turn[], record?: (messages: BaseMessage[], tools: unknown[]) => void, planning = true) {
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
  const middleware = planning ? [todoListMiddleware() as unknown as AnyAgentMiddleware] : [];
  const agent = createAgent({ model, tools, systemPrompt: SYSTEM_PROMPT, middleware });
  // Each model turn and each tool turn is a graph step; leave room for all of them.
  return () => agent.invoke({ messages: [new HumanMessage(TASK)] }, { recursionLimit: 4 * turns.length + 10 });
}

/** LangChain's requests (with its todo middleware, or `planning: false` without it); it has no ephemeral tail. */
async function runLangchain(turns: Turn[], planning = true): Promise<Captured[]> {
  const captured: Captured[] = [];
  const run = langchainAgent(
    turns,
    (messages, tools) => {
      const request = { messages: messages.map(fromLangchain), tools: tools.map(toToolSpec) };
      captured.push({ request, stored: request.messages.length });
    },
    planning,
  );
  await run();
  return captured;
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
function render(request: ModelRequest, messages = request.messages.length): string {
  const tools = request.tools.map((spec) => JSON.stringify(spec));
  const rendered = request.messages.slice(0, messages).map((m) => {
    const calls = m.role === "assistant" ? (m.toolCalls ?? []).map((c) => `\n<call ${c.name}>${c.arguments}`).join("") : "";
    return `<|${m.role}|>${m.content}${calls}`;
  });
  return [...tools, ...rendered].join("\n");
}

function commonPrefixLength<T extends string | readonly number[]>(a: T, b: T): number {
  const limit = Math.min(a.length, b.length);
  let i = 0;
  while (i < limit && a[i] === b[i]) i++;
  return i;
}

/** Planning text in a request: its tool, its system addition, recitations, the model's write_todos calls and their results. */
function planningTokens(request: ModelRequest): number {
  let tokens = 0;
  for (const spec of request.tools) if (spec.name === "write_todos") tokens += countTokens(JSON.stringify(spec));
  for (const message of request.messages) {
    if (message.role === "system") tokens += countTokens(message.content) - countTokens(SYSTEM_PROMPT);
    else if (message.role === "user" && message.content !== TASK) tokens += countTokens(message.content);
    else if (message.role === "tool" && message.name === "write_todos") tokens += countTokens(message.content);
    else if (message.role === "assistant") {
      for (const call of message.toolCalls ?? []) if (call.name === "write_todos") tokens += countTokens(`<call ${call.name}>${call.arguments}`);
    }
  }
  return tokens;
}

/**
 * The size of each planning prompt as the model receives it: the write_todos tool (description and
 * schema), what the framework adds to the system prompt, and the largest recitation of the list
 * (Stepwise's `<todo-list>`, wherever it stands: a write's result or the tail).
 */
function promptSizes(requests: readonly ModelRequest[]): { tool: number; system: number; recitation: number } {
  const last = requests.at(-1) as ModelRequest;
  const spec = last.tools.find((s) => s.name === "write_todos");
  const system = last.messages.find((m) => m.role === "system");
  const recitations = requests.flatMap((req) => req.messages).filter((m) => m.content.startsWith("<todo-list>"));
  return {
    tool: spec ? countTokens(JSON.stringify(spec)) : 0,
    system: system ? countTokens(system.content) - countTokens(SYSTEM_PROMPT) : 0,
    recitation: Math.max(0, ...recitations.map((m) => countTokens(m?.content ?? ""))),
  };
}

/**
 * How much of each request the next one repeats as its prefix, which is what a provider's prompt cache
 * can serve. `ofTokens` is the share of all tokens sent that the next request reused; `requestMean`
 * the mean of the per-request shares, which weighs the 600-token second request as much as the
 * 10,000-token last one. (Kept for comparison; cached_share and cache_cost apply the providers' rules.)
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

// ---- what a user pays: prompt caching by the providers' rules -------------------------------------

/** A cache read and a cache write, per token, against an uncached input token (both providers' list prices). */
const CACHE_READ = 0.1;
const CACHE_WRITE = 1.25;
/** Neither provider caches a prompt prefix shorter than this. */
const MIN_CACHED = 1024;
/** OpenAI serves its cache in steps of this many tokens. */
const OPENAI_STEP = 128;

/**
 * A request as tokens, block by block as a provider caches it (the tools, then each message, each
 * tokenized on its own so that a block shared by two requests has the same tokens in both), with
 * where its last cache breakpoint is (the end of what is stored) and where the system prompt ends.
 */
type Tokens = { all: number[]; stored: number; system: number };

const blockTokens = new Map<string, number[]>();
function tokensOfBlock(text: string): number[] {
  let tokens = blockTokens.get(text);
  if (!tokens) blockTokens.set(text, (tokens = tokenize(text)));
  return tokens;
}

function tokensOf({ request, stored }: Captured): Tokens {
  const blocks = [request.tools.map((spec) => JSON.stringify(spec)).join("\n"), ...request.messages.map((m) => render({ tools: [], messages: [m] }))].map(tokensOfBlock);
  const upTo = (count: number) => blocks.slice(0, count).reduce((sum, block) => sum + block.length, 0);
  return { all: blocks.flat(), stored: upTo(1 + stored), system: upTo(request.messages[0]?.role === "system" ? 2 : 1) };
}

/** OpenAI's rule: the longest prefix shared with the previous request, from 1,024 tokens on, in 128-token steps. */
function openAiCached(requests: readonly Tokens[]): number[] {
  return requests.map((req, i) => {
    const shared = i === 0 ? 0 : commonPrefixLength(req.all, (requests[i - 1] as Tokens).all);
    return shared >= MIN_CACHED ? Math.floor(shared / OPENAI_STEP) * OPENAI_STEP : 0;
  });
}

/**
 * Input cost in uncached-token equivalents, every request counted. OpenAI: the cached prefix at the
 * read price, the rest full price. Anthropic (breakpoints where the Anthropic adapter puts them: after
 * the tools, the system prompt and the last stored message, never in the ephemeral tail): a request
 * reads the longest prefix an earlier request wrote at one of its breakpoints, writes the rest up to
 * its own last breakpoint at the write price, and pays full price for the tail after it; a prefix
 * under 1,024 tokens is neither read nor written.
 */
function cacheCost(requests: readonly Tokens[], pricing: "anthropic" | "openai"): number {
  if (pricing === "openai") {
    const cached = openAiCached(requests);
    return Math.round(requests.reduce((sum, req, i) => sum + req.all.length - (cached[i] as number) * (1 - CACHE_READ), 0));
  }
  let cost = 0;
  const written: { tokens: number[]; length: number }[] = [];
  for (const req of requests) {
    let read = 0;
    for (const prefix of written) {
      if (prefix.length > read && prefix.length <= req.all.length && commonPrefixLength(prefix.tokens, req.all) >= prefix.length) read = prefix.length;
    }
    const writes = req.stored >= MIN_CACHED ? Math.max(0, req.stored - read) : 0;
    cost += read * CACHE_READ + writes * CACHE_WRITE + (req.all.length - read - writes);
    for (const end of [req.system, req.stored]) if (end >= MIN_CACHED) written.push({ tokens: req.all.slice(0, end), length: end });
  }
  return Math.round(cost);
}

/**
 * How far back the list lies: in each request after the first write, the tokens after the latest
 * message (or call) that shows every item not yet completed; the largest of these. Where the list
 * is recited at the tail this is 0; where it only ever sank with the history, it grows with the run.
 */
function listDistance(captured: readonly Captured[], lists: readonly (Todo[] | undefined)[]): number {
  let worst = 0;
  captured.forEach(({ request }, i) => {
    const open = (lists[i] ?? []).filter((todo) => todo.status !== "completed").map((todo) => todo.content);
    if (lists[i] === undefined) return;
    const texts = request.messages.map((m) => `${m.content}${m.role === "assistant" ? (m.toolCalls ?? []).map((c) => c.arguments).join("") : ""}`);
    const at = texts.findLastIndex((text) => open.every((content) => text.includes(content)));
    const after = request.messages.slice(at + 1).map((m) => render({ tools: [], messages: [m] }));
    worst = Math.max(worst, after.reduce((sum, text) => sum + tokensOfBlock(text).length, 0));
  });
  return worst;
}

/** `lists[i]` is the list the agent holds when request i is sent (see `listsAtRequests`); `plain` the same script without planning. */
function measure(system: string, captured: Captured[], plain: Captured[], lists: readonly (Todo[] | undefined)[], cost?: StepCost): BenchFigure[] {
  const requests = captured.map((c) => c.request);
  const texts = requests.map((req) => render(req));
  const sizes = texts.map(countTokens);
  const reuse = prefixReuse(texts, sizes);
  const tokens = captured.map(tokensOf);
  const plainTokens = plain.map(tokensOf);
  const cached = openAiCached(tokens);
  // Read from the script, not from the last write's arguments: a patch by id does not hold the list.
  const afterFirstWrite = requests.map((req, i) => ({ req, list: lists[i] })).filter(({ list }) => list !== undefined);
  // The last message shows every item not yet completed (a recitation shows completed ones by id only).
  const atTail = afterFirstWrite.filter(({ req, list }) => {
    const last = req.messages.at(-1)?.content ?? "";
    return (list ?? []).every((todo) => todo.status === "completed" || last.includes(todo.content));
  });
  const figure = (metric: string, value: number, extra: Partial<BenchFigure> = {}): BenchFigure => ({ bench: BENCH, metric, system, ...extra, value });
  const prompts = promptSizes(requests);
  return [
    figure("tool_prompt_tokens", prompts.tool),
    figure("system_prompt_addition_tokens", prompts.system),
    figure("recitation_tokens", prompts.recitation),
    figure("prompt_tokens", sizes.reduce((sum, n) => sum + n, 0)),
    figure("planning_tokens", requests.reduce((sum, req) => sum + planningTokens(req), 0)),
    figure("tail_share", round(atTail.length / afterFirstWrite.length)),
    figure("list_distance_max_tokens", listDistance(captured, lists)),
    figure("prefix_reuse", round(reuse.ofTokens)),
    figure("prefix_reuse_request_mean", round(reuse.requestMean)),
    figure("cached_share", round(cached.reduce((a, b) => a + b, 0) / tokens.reduce((sum, req) => sum + req.all.length, 0))),
    ...(["anthropic", "openai"] as const).flatMap((pricing) => [
      figure("cache_cost", cacheCost(tokens, pricing), { pricing }),
      figure("plain_cache_cost", cacheCost(plainTokens, pricing), { pricing }),
    ]),
    ...(cost ? [figure("overhead_us_per_step", Math.round(cost.wallUs)), figure("cpu_us_per_step", Math.round(cost.cpuUs))] : []),
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

/** The script's work turns only: what the conversation is without any planning part. */
function plainTurns(script: readonly Step[]): Turn[] {
  return turnsOf(
    script.filter((step) => !("list" in step)),
    () => ({}),
  ).turns;
}

/**
 * Each system's planning overhead in cost (cache_cost − plain_cache_cost) against LangChain's, per
 * pricing: the figure the todo list is judged by (and, beside it, against LangChain's model writing in
 * the same turns as Stepwise's).
 */
function overheadRatios(figures: readonly BenchFigure[]): BenchFigure[] {
  const value = (system: string, metric: string, pricing: string) =>
    figures.find((f) => f.system === system && f.metric === metric && f.pricing === pricing)?.value ?? Number.NaN;
  const overhead = (system: string, pricing: string) => value(system, "cache_cost", pricing) - value(system, "plain_cache_cost", pricing);
  return ["anthropic", "openai"].flatMap((pricing) => [
    { bench: BENCH, metric: "planning_cost_over_langchain", system: "stepwise", pricing, value: round(overhead("stepwise", pricing) / overhead("langchain", pricing)) },
    {
      bench: BENCH,
      metric: "planning_cost_over_langchain_same_turns",
      system: "stepwise",
      pricing,
      value: round(overhead("stepwise", pricing) / overhead("langchain-same-turns", pricing)),
    },
  ]);
}

/** The recitation bounds the trade-off is measured at: how far back the list may lie, against what it costs. */
const RECITE_AFTER = [0, 1_000, 2_000, 4_000, 8_000];

/** The last run's trade-off points, for `--plot`: per bound, the list's largest distance and the planning cost against LangChain's. */
let lastTradeOff: { name: string; points: [number, number][] }[] = [];

/**
 * What keeping the list near costs: the same Stepwise run at each bound, its planning overhead against
 * LangChain's (per pricing) and how far back the list lay at worst.
 */
async function recitationTradeOff(
  stepwise: { turns: Turn[]; lists: (Todo[] | undefined)[] },
  plain: Captured[],
  langchainOverhead: Record<"anthropic" | "openai", number>,
): Promise<BenchFigure[]> {
  const figures: BenchFigure[] = [];
  const points: Record<"anthropic" | "openai", [number, number][]> = { anthropic: [], openai: [] };
  for (const bound of RECITE_AFTER) {
    const captured = await runStepwise(stepwise.turns, todosAt(AREAS.length), todoList({ reciteAfterTokens: bound }));
    const tokens = captured.map(tokensOf);
    const plainTokens = plain.map(tokensOf);
    const distance = listDistance(captured, stepwise.lists);
    figures.push({ bench: BENCH, metric: "list_distance_max_tokens", system: "stepwise", reciteAfterTokens: bound, value: distance });
    for (const pricing of ["anthropic", "openai"] as const) {
      const share = round((cacheCost(tokens, pricing) - cacheCost(plainTokens, pricing)) / langchainOverhead[pricing]);
      figures.push({ bench: BENCH, metric: "planning_cost_over_langchain", system: "stepwise", pricing, reciteAfterTokens: bound, value: share });
      points[pricing].push([distance, share]);
    }
  }
  lastTradeOff = [
    { name: "Stepwise, Anthropic prices (bounds 0, 1k, 2k, 4k, 8k)", points: points.anthropic },
    { name: "Stepwise, OpenAI prices", points: points.openai },
  ];
  return figures;
}

export const todoContextBenchmark: Benchmark = {
  name: BENCH,
  plots: () => [
    {
      name: "todo-recitation",
      title: "Todo list: planning cost against LangChain's, and how far back the full list lies",
      xLabel: "tokens from the end of a request back to the list's latest full copy (worst request)",
      yLabel: "planning cost / LangChain's",
      kind: "line",
      series: lastTradeOff,
    },
  ],
  async run() {
    const script = taskScript();
    const stepwise = turnsOf(script, stepwiseWrite, { sameTurn: true });
    const langchain = turnsOf(script, langchainWrite);
    const langchainSameTurns = turnsOf(script, langchainWrite, { sameTurn: true });
    const plain = plainTurns(script);
    const plainStepwise = await runPlainStepwise(plain);
    const plainLangchain = await runLangchain(plain, false);
    const runs = {
      stepwise: await runStepwise(stepwise.turns, todosAt(AREAS.length)),
      "stepwise-every-call": await runStepwise(stepwise.turns, todosAt(AREAS.length), todoList({ reciteAfterTokens: 0 })),
      langchain: await runLangchain(langchain.turns),
      "langchain-same-turns": await runLangchain(langchainSameTurns.turns),
    };
    for (const [system, requests] of Object.entries(runs)) {
      const expected = (system.startsWith("stepwise") ? stepwise : system === "langchain" ? langchain : langchainSameTurns).turns.length;
      if (requests.length !== expected) throw new Error(`todo-context bench: ${system} made ${requests.length} model calls for ${expected} scripted turns.`);
    }
    const stepwiseCost = await costPerStep(stepwise.turns.length, () => {
      const agent = stepwiseAgent(instantStepwiseModel(stepwise.turns));
      return () => agent.run(TASK);
    });
    const langchainCost = await costPerStep(langchain.turns.length, () => langchainAgent(langchain.turns));
    const figures = [
      ...measure("stepwise", runs.stepwise, plainStepwise, stepwise.lists, stepwiseCost),
      ...measure("langchain", runs.langchain, plainLangchain, langchain.lists, langchainCost),
      ...measure("stepwise-every-call", runs["stepwise-every-call"], plainStepwise, stepwise.lists),
      ...measure("langchain-same-turns", runs["langchain-same-turns"], plainLangchain, langchainSameTurns.lists),
    ];
    const langchainTokens = runs.langchain.map(tokensOf);
    const plainLangchainTokens = plainLangchain.map(tokensOf);
    const langchainOverhead = {
      anthropic: cacheCost(langchainTokens, "anthropic") - cacheCost(plainLangchainTokens, "anthropic"),
      openai: cacheCost(langchainTokens, "openai") - cacheCost(plainLangchainTokens, "openai"),
    };
    return [...figures, ...overheadRatios(figures), ...(await recitationTradeOff(stepwise, plainStepwise, langchainOverhead))];
  },
};
