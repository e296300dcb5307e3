// A long run with and without context folding: one scripted 200-step trajectory (20 plan units of
// 10 steps, tool results of 1-3 KB: file contents and search results) replayed through the same
// agent twice, once with contextFolding. Every request the model receives is measured with the
// o200k tokenizer. The plan is a real PlanNotebook: its hint shows the plan at the tail of every
// request, and its subtasks are the units folding folds along (`unit-start` / `unit-end`).
import { z } from "zod";
import { Agent } from "../src/core/agent.js";
import type { ModelRequest } from "../src/core/model.js";
import { defineTool } from "../src/core/tool.js";
import { scriptedModel, type ScriptedTurn } from "../src/models/scripted.js";
import { contextFolding } from "../src/planning/folding/context-folding.js";
import { PlanNotebook } from "../src/planning/notebook/plan-notebook.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import { countTokens } from "./tokens.js";

const BENCH = "long-run";
const UNITS = 20;
const STEPS_PER_UNIT = 10;
/** The folded agent's model: a 128k context window, with contextFolding's default share of it. */
const CONTEXT_WINDOW = 128_000;
/** Per-message framing a chat API adds around each message (role, separators). */
const MESSAGE_OVERHEAD_TOKENS = 3;
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

const PLAN = {
  name: "Retry and timeout audit",
  description: "Audit every service of the platform for unsafe retry and timeout settings, and fix them.",
  expected_outcome: "Every service retries with backoff and a cap, and times out within 10 s.",
  subtasks: SERVICES.map((service) => ({
    name: `Audit the ${service} service`,
    description: `Read the ${service} client, its retry and timeout settings and their tests; fix what is unsafe.`,
    expected_outcome: "Safe retries and timeouts, with the change noted.",
  })),
};

// ---- the trajectory: 20 units × 10 steps, then the answer -----------------------------------------

type Call = { name: string; arguments: Record<string, unknown> };

/**
 * Unit i's ten steps. The first unit's first step creates the plan and starts subtask 0; finishing a
 * subtask starts the next one, and the last finish closes the plan in the same turn.
 */
function unitSteps(i: number): Call[][] {
  const service = SERVICES[i] ?? "service";
  const root = `services/${service}/src`;
  const begin: Call[] =
    i === 0
      ? [{ name: "create_plan", arguments: PLAN }, { name: "update_subtask_state", arguments: { subtask_idx: 0, state: "in_progress" } }]
      : [];
  const finish: Call[] = [{ name: "finish_subtask", arguments: { subtask_idx: i, subtask_outcome: `${service}: retries capped at 3 with jitter, timeouts at 10 s` } }];
  if (i === UNITS - 1) finish.push({ name: "finish_plan", arguments: { state: "done", outcome: "All twenty services retry safely and time out within 10 s." } });
  return [
    [...begin, { name: "read_file", arguments: { path: `${root}/client.ts` } }],
    [{ name: "read_file", arguments: { path: `${root}/retry.ts` } }],
    [{ name: "search_web", arguments: { query: `${service} service retry policy` } }],
    [{ name: "read_file", arguments: { path: `${root}/timeouts.ts` } }],
    [{ name: "read_file", arguments: { path: `services/${service}/config/production.ts` } }],
    [{ name: "search_web", arguments: { query: `${service} idempotency keys` } }],
    [{ name: "edit_file", arguments: { path: `${root}/retry.ts`, old_text: "retries: 5", new_text: "retries: 3" } }],
    [{ name: "read_file", arguments: { path: `${root}/retry.test.ts` } }],
    [{ name: "read_file", arguments: { path: `services/${service}/README.md` } }],
    finish,
  ];
}

type Measured = { maxRequestTokens: number; totalPromptTokens: number; prefixBreaks: number; planAtTailShare: number; requests: number };

async function replay(folded: boolean): Promise<Measured & { foldingBreaks: number }> {
  const plan = new PlanNotebook();
  let planAtTail = 0;
  const turns: ScriptedTurn[] = [];
  for (let i = 0; i < UNITS; i++) {
    for (const calls of unitSteps(i)) {
      turns.push((req) => {
        if (req.messages.at(-1)?.content === plan.hint()) planAtTail++;
        return { toolCalls: calls };
      });
    }
  }
  turns.push("Every service is audited; unsafe retry and timeout settings are fixed.");
  if (turns.length !== UNITS * STEPS_PER_UNIT + 1) throw new Error("long-run: the trajectory must be 200 steps and an answer");

  const model = scriptedModel(turns);
  const folding = folded ? contextFolding({ contextWindow: CONTEXT_WINDOW }) : undefined;
  const agent = new Agent({
    model,
    systemPrompt: SYSTEM_PROMPT,
    tools: [readFile, searchWeb, editFile],
    plugins: folding ? [plan, folding] : [plan],
    maxSteps: UNITS * STEPS_PER_UNIT + 1,
  });
  const result = await agent.run(TASK);
  if (result.stopReason !== "final") throw new Error(`long-run: the replay stopped with ${result.stopReason}`);

  const sizes = model.requests.map(requestTokens);
  const toolCallRequests = model.requests.length - 1;
  return {
    maxRequestTokens: Math.max(...sizes),
    totalPromptTokens: sizes.reduce((a, b) => a + b, 0),
    prefixBreaks: countPrefixBreaks(model.requests),
    foldingBreaks: folding?.stats.prefixBreaks ?? 0,
    planAtTailShare: planAtTail / toolCallRequests,
    requests: model.requests.length,
  };
}

/** Tokens of one request as a provider would bill it: messages, their framing, and the tool specs. */
function requestTokens(req: ModelRequest): number {
  let total = cachedCount(JSON.stringify(req.tools));
  for (const message of req.messages) {
    total += MESSAGE_OVERHEAD_TOKENS + cachedCount(message.content);
    if (message.role === "assistant") for (const call of message.toolCalls ?? []) total += cachedCount(call.name) + cachedCount(call.arguments);
  }
  return total;
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

export const longRunBenchmark: Benchmark = {
  name: BENCH,
  async run(): Promise<BenchFigure[]> {
    const unfolded = await replay(false);
    const folded = await replay(true);
    if (folded.prefixBreaks !== folded.foldingBreaks) {
      throw new Error(`long-run: ${folded.prefixBreaks} prefix breaks seen in the requests, but folding reported ${folded.foldingBreaks}`);
    }
    return [
      { bench: BENCH, metric: "max_request_tokens", system: "folded", value: folded.maxRequestTokens },
      { bench: BENCH, metric: "max_request_tokens", system: "unfolded", value: unfolded.maxRequestTokens },
      { bench: BENCH, metric: "total_prompt_tokens", system: "folded", value: folded.totalPromptTokens },
      { bench: BENCH, metric: "total_prompt_tokens", system: "unfolded", value: unfolded.totalPromptTokens },
      { bench: BENCH, metric: "prefix_breaks", system: "folded", value: folded.prefixBreaks },
      { bench: BENCH, metric: "plan_at_tail_share", system: "folded", value: folded.planAtTailShare },
    ];
  },
};
