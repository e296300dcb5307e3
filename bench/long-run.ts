// A long run with and without context folding: one scripted 200-step trajectory (20 plan units of
// 10 steps, tool results of 1-3 KB: file contents and search results) replayed through the same
// agent, unfolded and with contextFolding at budgets of 16k, 32k and 64k tokens of a 128k window,
// counting with the o200k tokenizer (contextFolding's countTokens). Every request the model receives
// is measured with that tokenizer (tools and messages, as a provider bills them), checked against the
// budget, and priced as a provider with a prompt cache bills it. The plan is a real PlanNotebook: its
// hint shows the plan at the tail of every request, and its subtasks are the units folding folds
// along (`unit-start` / `unit-end`). From unit 10 on, a unit's edit needs a value from the unit ten
// before it (that service's first timeout in its retry.ts): the scripted model reads it off its
// history, and when that unit was folded away it calls recall first, as a model would; whether each
// edit carries the right value is `answers_correct`. The same run at 1,000 steps (100 units) shows how
// the cost grows with the length of the work.
import { z } from "zod";
import { Agent } from "../src/core/agent.js";
import type { Message } from "../src/core/messages.js";
import type { ModelRequest } from "../src/core/model.js";
import { defineTool } from "../src/core/tool.js";
import { reactiveModel, type ScriptedTurn } from "../src/models/scripted.js";
import { contextFolding, type ContextFolding } from "../src/planning/folding/context-folding.js";
import { unitRef } from "../src/planning/folding/folded-record.js";
import type { FoldingState } from "../src/planning/folding/folding-state.js";
import { PlanNotebook } from "../src/planning/notebook/plan-notebook.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import type { Chart } from "../src/eval/svg-chart.js";
import { countTokens } from "./tokens.js";

const BENCH = "long-run";
const UNITS = 20;
/** The long variant of the same run, for growth_1000_over_200. */
const LONG_UNITS = 100;
const STEPS_PER_UNIT = 10;
/** The folded agent's model: a 128k context window. */
const CONTEXT_WINDOW = 128_000;
/** The headline budget (figures without a `budget` field), then the trade-off on either side. */
const BUDGET_TOKENS = 32_000;
const OTHER_BUDGETS = [16_000, 64_000];
/** What a cached input token costs against an uncached one at the large providers (a cache read). */
const CACHED_READ_PRICE = 0.1;
/** Per-message framing a chat API adds around each message (role, separators). */
const MESSAGE_OVERHEAD_TOKENS = 3;
/** From this unit on, a unit's edit needs a value found in the unit this many before it. */
const LOOKBACK_UNITS = 10;
const SYSTEM_PROMPT =
  "You are a research and coding agent. Work through the plan one subtask at a time: use the tools, then finish the subtask with its outcome.";
const TASK = "Audit the twenty services of the platform for their retry and timeout settings and fix what is unsafe.";
const SERVICES = [
  "billing", "checkout", "search", "catalog", "inventory", "shipping", "notifications", "accounts", "sessions", "payments",
  "reviews", "pricing", "recommendations", "media", "gateway", "reporting", "exports", "webhooks", "scheduler", "audit",
];

// ---- deterministic, realistically sized tool results ---------------------------------------------

/** A small seeded generator, so both systems (and every run) see the same bytes. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Between 1 and 3 KB of TypeScript that reads like a service's client code. */
function fileContents(path: string, seed: number): string {
  const next = random(seed);
  const target = 1024 + Math.floor(next() * 2048);
  const lines = [`// ${path}`, `import { request } from "../http/client.js";`, `import { settings } from "../config/settings.js";`, ""];
  for (let i = 0; lines.join("\n").length < target; i++) {
    const timeout = 500 + Math.floor(next() * 9500);
    const retries = Math.floor(next() * 6);
    lines.push(
      `export async function call${i}(body: unknown): Promise<Response> {`,
      `  return request(settings.baseUrl + "/v${1 + (i % 3)}/op${i}", { body, timeoutMs: ${timeout}, retries: ${retries} });`,
      "}",
    );
  }
  return lines.join("\n").slice(0, target);
}

/** Between 1 and 3 KB of search hits with titles, URLs and snippets. */
function searchResults(query: string, seed: number): string {
  const next = random(seed);
  const target = 1024 + Math.floor(next() * 2048);
  const hits: string[] = [`Results for "${query}":`];
  for (let i = 1; hits.join("\n").length < target; i++) {
    const slug = query.toLowerCase().replace(/\W+/g, "-");
    hits.push(
      `${i}. ${query} — best practices, part ${i}`,
      `   https://engineering.example.com/${slug}/${Math.floor(next() * 1e6)}`,
      `   Retries should back off exponentially with jitter; a timeout of ${Math.floor(next() * 30)} s is usual for calls of this kind, and idempotency keys keep retried writes safe.`,
    );
  }
  return hits.join("\n").slice(0, target);
}

const readFile = defineTool({
  name: "read_file",
  description: "Read a text file of the repository.",
  parameters: z.object({ path: z.string() }),
  readOnly: true,
  execute: ({ path }) => fileContents(path, hash(path)),
});

const searchWeb = defineTool({
  name: "search_web",
  description: "Search the web; returns titles, URLs and snippets.",
  parameters: z.object({ query: z.string() }),
  readOnly: true,
  execute: ({ query }) => searchResults(query, hash(query)),
});

const editFile = defineTool({
  name: "edit_file",
  description: "Replace one exact text in a file.",
  parameters: z.object({ path: z.string(), old_text: z.string(), new_text: z.string() }),
  execute: ({ path }) => `Edited ${path}: 1 replacement.`,
});

function hash(text: string): number {
  let h = 2166136261;
  for (const char of text) h = Math.imul(h ^ char.charCodeAt(0), 16777619);
  return h >>> 0;
}

// ---- the plan: a real PlanNotebook, whose hint carries the plan at the tail of every request ------

/** Unit i's service: the twenty services, then the same again in a second region, and so on. */
function serviceOf(i: number): string {
  const base = SERVICES[i % SERVICES.length] ?? "service";
  const round = Math.floor(i / SERVICES.length);
  return round === 0 ? base : `${base}-${round + 1}`;
}

function planOf(units: number) {
  return {
    name: "Retry and timeout audit",
    description: "Audit every service of the platform for unsafe retry and timeout settings, and fix them.",
    expected_outcome: "Every service retries with backoff and a cap, and times out within 10 s.",
    subtasks: Array.from({ length: units }, (_, i) => serviceOf(i)).map((service) => ({
      name: `Audit the ${service} service`,
      description: `Read the ${service} client, its retry and timeout settings and their tests; fix what is unsafe.`,
      expected_outcome: "Safe retries and timeouts, with the change noted.",
    })),
  };
}

// ---- the trajectory: units × 10 steps, then the answer --------------------------------------------

type Call = { name: string; arguments: Record<string, unknown> };

/** The value unit i's edit must carry: the first timeout in the retry.ts of the unit LOOKBACK_UNITS before it. */
function neededTimeout(i: number): string {
  const path = retryPath(i - LOOKBACK_UNITS);
  return /timeoutMs: (\d+)/.exec(fileContents(path, hash(path)))?.[1] as string;
}

function retryPath(i: number): string {
  return `services/${serviceOf(i)}/src/retry.ts`;
}

/**
 * Unit i's ten steps. The first unit's first step creates the plan and starts subtask 0; finishing a
 * subtask starts the next one, and the last finish closes the plan in the same turn. From unit
 * LOOKBACK_UNITS on, the seventh step sets a timeout to the value found ten units before (`needs`).
 */
function unitSteps(i: number, units: number): { calls: Call[]; needs?: number }[] {
  const service = serviceOf(i);
  const root = `services/${service}/src`;
  const begin: Call[] =
    i === 0
      ? [{ name: "create_plan", arguments: planOf(units) }, { name: "update_subtask_state", arguments: { subtask_idx: 0, state: "in_progress" } }]
      : [];
  const finish: Call[] = [{ name: "finish_subtask", arguments: { subtask_idx: i, subtask_outcome: `${service}: retries capped at 3 with jitter, timeouts at 10 s` } }];
  if (i === units - 1) finish.push({ name: "finish_plan", arguments: { state: "done", outcome: "Every service retries safely and times out within 10 s." } });
  const edit: { calls: Call[]; needs?: number } =
    i >= LOOKBACK_UNITS
      ? { calls: [{ name: "edit_file", arguments: { path: `${root}/timeouts.ts`, old_text: "timeoutMs: 10000", new_text: "timeoutMs: ?" } }], needs: i - LOOKBACK_UNITS }
      : { calls: [{ name: "edit_file", arguments: { path: `${root}/retry.ts`, old_text: "retries: 5", new_text: "retries: 3" } }] };
  return [
    { calls: [...begin, { name: "read_file", arguments: { path: `${root}/client.ts` } }] },
    { calls: [{ name: "read_file", arguments: { path: `${root}/retry.ts` } }] },
    { calls: [{ name: "search_web", arguments: { query: `${service} service retry policy` } }] },
    { calls: [{ name: "read_file", arguments: { path: `${root}/timeouts.ts` } }] },
    { calls: [{ name: "read_file", arguments: { path: `services/${service}/config/production.ts` } }] },
    { calls: [{ name: "search_web", arguments: { query: `${service} idempotency keys` } }] },
    edit,
    { calls: [{ name: "read_file", arguments: { path: `${root}/retry.test.ts` } }] },
    { calls: [{ name: "read_file", arguments: { path: `services/${service}/README.md` } }] },
    { calls: finish },
  ];
}

/**
 * The value an edit needs, as the model finds it in the request: the retry.ts of unit `source` read
 * earlier, or what recall gave back; undefined when it was folded away and not recalled yet. With
 * it, the folded unit's reference to recall (from its record or the digest line naming its service).
 */
function lookUp(req: ModelRequest, source: number): { value?: string; recallRef?: string } {
  const path = retryPath(source);
  const valueIn = (text: string) => /timeoutMs: (\d+)/.exec(text)?.[1];
  for (const message of [...req.messages].reverse()) {
    if (message.role !== "tool") continue;
    if (message.content.startsWith(`// ${path}\n`)) return { value: valueIn(message.content) as string };
    if (message.name === "recall" && message.content.startsWith("{")) {
      const recalled = (JSON.parse(message.content) as { messages: Message[] }).messages.find((m) => m.role === "tool" && m.content.startsWith(`// ${path}\n`));
      if (recalled) return { value: valueIn(recalled.content) as string };
    }
  }
  // A record: `<folded-work unit="subtask:…">` then `Finished subtask … "Audit the … service".`; a digest line:
  // `- subtask:… "Audit the … service": …`; a stubbed result: `[Result of read_file folded … It mentioned: <path> … recall with unit "<id>" …]`.
  const title = escapeRegExp(`"Audit the ${serviceOf(source)} service"`);
  const patterns = [
    new RegExp(`unit="(subtask:[^"]+)">\\nFinished subtask [^\\n]*${title}`),
    new RegExp(`^- (subtask:\\S+) ${title}`, "m"),
    new RegExp(`^\\[Result of read_file folded[^\\]]*It mentioned: [^\\]]*${escapeRegExp(path)}[^\\]]*recall with unit "([^"]+)"`),
  ];
  for (const message of req.messages) {
    for (const pattern of patterns) {
      const ref = pattern.exec(message.content)?.[1];
      if (ref) return { recallRef: ref };
    }
  }
  throw new Error(`long-run: unit ${source}'s retry.ts is neither in the request nor in a folded record`);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

type Measured = {
  maxRequestTokens: number;
  totalPromptTokens: number;
  cacheCost: number;
  prefixBreaks: number;
  planAtTailShare: number;
  /** Request sizes in call order, for the plots. */
  requestTokens: number[];
  /** Requests larger than the budget (o200k, tools and framing included). */
  overBudgetRequests: number;
  /** recall calls the model made for values of folded units, and the tokens they brought back. */
  recallCalls: number;
  recallTokens: number;
  /** The share of dependent edits that carried the right value. */
  answersCorrect: number;
};

type Replay = Measured & { seen: Set<string>; folding: ContextFolding | undefined };

async function replay(units: number, budgetTokens?: number): Promise<Replay> {
  const plan = new PlanNotebook();
  let planAtTail = 0;
  const steps = Array.from({ length: units }, (_, i) => unitSteps(i, units).map((step) => ({ ...step, unit: i }))).flat();
  let next = 0;
  let recallCalls = 0;
  const answers: boolean[] = [];
  // Each request is answered from the script's next step; a step that needs a folded unit's value
  // first asks recall for it (a turn of its own), then makes its call with what came back.
  const model = reactiveModel((req): ScriptedTurn => {
    if (req.messages.at(-1)?.content === plan.hint()) planAtTail++;
    const step = steps[next];
    if (!step) return "Every service is audited; unsafe retry and timeout settings are fixed.";
    if (step.needs === undefined) {
      next++;
      return { toolCalls: step.calls };
    }
    const found = lookUp(req, step.needs);
    if (found.value === undefined) {
      recallCalls++;
      // Only what mentions the file it needs: a whole unit would bring back ten results to read one.
      return { toolCalls: [{ name: "recall", arguments: { unit: found.recallRef, ...(found.recallRef?.startsWith("subtask:") ? { match: retryPath(step.needs) } : {}) } }] };
    }
    next++;
    answers.push(found.value === neededTimeout(step.unit));
    return { toolCalls: step.calls.map((call) => ({ ...call, arguments: { ...call.arguments, new_text: `timeoutMs: ${found.value}` } })) };
  });
  const folding =
    budgetTokens === undefined ? undefined : contextFolding({ contextWindow: CONTEXT_WINDOW, budgetTokens, countTokens: (text) => cachedCount(text) });
  const agent = new Agent({
    model,
    systemPrompt: SYSTEM_PROMPT,
    tools: [readFile, searchWeb, editFile],
    plugins: folding ? [plan, folding] : [plan],
    maxSteps: units * (STEPS_PER_UNIT + 1) + 1,
  });
  const result = await agent.run(TASK);
  if (result.stopReason !== "final") throw new Error(`long-run: the replay stopped with ${result.stopReason}`);
  if (answers.length !== Math.max(0, units - LOOKBACK_UNITS)) throw new Error(`long-run: ${answers.length} dependent edits made, for ${units - LOOKBACK_UNITS} units`);

  const sizes = model.requests.map(requestTokens);
  const prefixBreaks = countPrefixBreaks(model.requests);
  if (folding && prefixBreaks !== folding.stats.prefixBreaks) {
    throw new Error(`long-run: ${prefixBreaks} prefix breaks seen in the requests, but folding reported ${folding.stats.prefixBreaks}`);
  }
  const seen = new Set(model.requests.flatMap((req) => req.messages.map((message) => JSON.stringify(message))));
  // Each recall result once, as the request after its call carried it (later ones may have folded it).
  const recalled = new Map(model.requests.flatMap((req) => req.messages.flatMap((m) => (m.role === "tool" && m.name === "recall" ? [[m.toolCallId, m.content] as const] : []))));
  return {
    maxRequestTokens: Math.max(...sizes),
    totalPromptTokens: sum(sizes),
    cacheCost: Math.round(cacheCost(model.requests)),
    prefixBreaks,
    planAtTailShare: planAtTail / (model.requests.length - 1),
    requestTokens: sizes,
    overBudgetRequests: budgetTokens === undefined ? 0 : sizes.filter((tokens) => tokens > budgetTokens).length,
    recallCalls,
    recallTokens: sum([...recalled.values()].map((content) => cachedCount(content))),
    answersCorrect: answers.length === 0 ? 1 : answers.filter(Boolean).length / answers.length,
    seen,
    folding,
  };
}

/** Tokens of one message as a provider would bill it, framing included. */
function messageTokens(message: Message): number {
  let total = MESSAGE_OVERHEAD_TOKENS + cachedCount(message.content);
  if (message.role === "assistant") for (const call of message.toolCalls ?? []) total += cachedCount(call.name) + cachedCount(call.arguments);
  return total;
}

/** Tokens of one request as a provider would bill it: messages, their framing, and the tool specs. */
function requestTokens(req: ModelRequest): number {
  return cachedCount(JSON.stringify(req.tools)) + sum(req.messages.map(messageTokens));
}

/**
 * What the run costs with a prompt cache, in uncached-token equivalents: each request's longest
 * common prefix with the previous request (tools, then whole messages) is a cache read at
 * CACHED_READ_PRICE, the rest full price. Every request asks the cache, as providers that cache
 * automatically (or with a breakpoint on the stable prefix) do.
 */
function cacheCost(requests: readonly ModelRequest[]): number {
  let cost = 0;
  let previous: ModelRequest | undefined;
  for (const req of requests) {
    const tools = cachedCount(JSON.stringify(req.tools));
    let cached = 0;
    if (previous && JSON.stringify(previous.tools) === JSON.stringify(req.tools)) {
      cached = tools;
      for (let i = 0; i < req.messages.length && i < previous.messages.length; i++) {
        const message = req.messages[i] as Message;
        if (JSON.stringify(message) !== JSON.stringify(previous.messages[i])) break;
        cached += messageTokens(message);
      }
    }
    cost += requestTokens(req) - cached + cached * CACHED_READ_PRICE;
    previous = req;
  }
  return cost;
}

// The same messages come back in request after request; count each text once.
const counted = new Map<string, number>();
function cachedCount(text: string): number {
  let tokens = counted.get(text);
  if (tokens === undefined) counted.set(text, (tokens = countTokens(text)));
  return tokens;
}

/**
 * Requests that do not extend the previous one (its last message, the ephemeral plan hint, aside):
 * each one would miss a provider's prefix cache from the point of change.
 */
function countPrefixBreaks(requests: readonly ModelRequest[]): number {
  let breaks = 0;
  for (let i = 1; i < requests.length; i++) {
    const before = (requests[i - 1] as ModelRequest).messages.slice(0, -1);
    const now = (requests[i] as ModelRequest).messages;
    if (JSON.stringify(now.slice(0, before.length)) !== JSON.stringify(before)) breaks++;
  }
  return breaks;
}

/**
 * 1 when recall gives back every folded original byte for byte: each folded unit's messages and each
 * stubbed result, against the messages as the folded run's own requests showed them before they were
 * folded (`seen`: every message of every request, as JSON); an earlier recall's result inside a unit
 * comes back as the pointer that stands for it. 0 otherwise.
 */
async function recallExact(folding: ContextFolding, seen: ReadonlySet<string>): Promise<number> {
  const recall = folding.tools?.().find((tool) => tool.name === "recall");
  if (!recall) throw new Error("long-run: contextFolding offers no recall tool");
  const state = folding.saveState?.() as FoldingState;
  if (state.units.length === 0) throw new Error("long-run: nothing was folded, so recall was not tested");
  for (const ref of new Set(state.units.map((fold) => unitRef(fold.unit)))) {
    const result = await recall.invoke({ unit: ref });
    if (result.isError) return 0;
    const { messages } = JSON.parse(result.text) as { messages: Message[] };
    if (!messages.every((message) => seen.has(JSON.stringify(message)) || (message.role === "tool" && message.name === "recall" && message.content.startsWith("[This recalled ")))) return 0;
  }
  for (const stub of state.stubs) {
    const result = await recall.invoke({ unit: stub.original.toolCallId });
    if (result.isError || result.text !== stub.original.content || !seen.has(JSON.stringify(stub.original))) return 0;
  }
  return 1;
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** Request sizes per call, unfolded and folded at each budget, of the last run: what `--plot` draws. */
let lastSeries: { name: string; requestTokens: number[] }[] = [];

export const longRunBenchmark: Benchmark = {
  name: BENCH,
  async run(): Promise<BenchFigure[]> {
    const unfolded = await replay(UNITS);
    const figures: BenchFigure[] = [];
    const series = [{ name: "unfolded", requestTokens: unfolded.requestTokens }];
    for (const budget of [BUDGET_TOKENS, ...OTHER_BUDGETS]) {
      const folded = await replay(UNITS, budget);
      const long = await replay(LONG_UNITS, budget);
      series.push({ name: `folded, ${budget / 1000}k budget`, requestTokens: folded.requestTokens });
      // The headline budget's figures carry no budget field; the others name theirs.
      const tag = budget === BUDGET_TOKENS ? {} : { budget };
      const figure = (metric: string, value: number): BenchFigure => ({ bench: BENCH, metric, system: "folded", ...tag, value });
      figures.push(
        figure("max_request_tokens", folded.maxRequestTokens),
        figure("total_prompt_tokens", folded.totalPromptTokens),
        figure("cache_cost", folded.cacheCost),
        figure("prefix_breaks", folded.prefixBreaks),
        figure("plan_at_tail_share", folded.planAtTailShare),
        figure("growth_1000_over_200", Math.round((long.totalPromptTokens / folded.totalPromptTokens) * 100) / 100),
        figure("recall_exact", await recallExact(folded.folding as ContextFolding, folded.seen)),
        figure("over_budget_requests", folded.overBudgetRequests),
        figure("recall_calls", folded.recallCalls),
        figure("recall_tokens", folded.recallTokens),
        figure("answers_correct", round(folded.answersCorrect)),
      );
      if (budget === BUDGET_TOKENS) {
        const unfoldedFigure = (metric: string, value: number): BenchFigure => ({ bench: BENCH, metric, system: "unfolded", value });
        figures.push(
          unfoldedFigure("max_request_tokens", unfolded.maxRequestTokens),
          unfoldedFigure("total_prompt_tokens", unfolded.totalPromptTokens),
          unfoldedFigure("cache_cost", unfolded.cacheCost),
          unfoldedFigure("answers_correct", round(unfolded.answersCorrect)),
        );
      }
    }
    lastSeries = series;
    return figures;
  },
  plots: (): Chart[] => [
    {
      name: "long-run-request-tokens",
      title: "Request size per model call, 200-step run",
      xLabel: "model call",
      yLabel: "request tokens (o200k)",
      kind: "line",
      series: lastSeries.map(({ name, requestTokens }) => ({ name, points: requestTokens.map((tokens, i): [number, number] => [i + 1, tokens]) })),
    },
  ],
};
