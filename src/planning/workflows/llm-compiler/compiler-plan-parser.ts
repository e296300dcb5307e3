import { argumentLimitProblem, parseJsonWithinLimits } from "../../../core/argument-limits.js";
import type { AssistantMessage } from "../../../core/messages.js";
import type { Tool } from "../../../core/tool.js";
import { parseCallArguments } from "./call-arguments.js";
import { referencedTasks } from "./task-references.js";

/** One task of an LLM-compiler plan: a tool call whose arguments may use earlier results as `$n`. */
export type CompilerTask = {
  id: number;
  tool: string;
  args: Record<string, unknown>;
  dependsOn: number[];
  /** Set when the task repeats one that already ran: its result is reused, the tool is not called again. */
  repeats?: number;
};

export type PlanParseEvent = { type: "task"; task: CompilerTask } | { type: "error"; message: string };

export interface CompilerPlanParserOptions {
  tools: readonly Tool[];
  /** Tasks that ran in earlier rounds: new tasks may use their results, are numbered after them and never repeat them. */
  finished?: readonly CompilerTask[];
}

type RawTask = { id?: number; tool: string; args: Record<string, unknown>; deps: number[]; where: string };

const TEXT_TASK = /^(\d+)\.\s*([A-Za-z_][\w-]*)\s*\(([\s\S]*)\)\s*(?:#.*)?$/;
const TEXT_JOIN = /^(?:\d+\.\s*)?join\s*\(\s*\)/;

/**
 * Reads a task DAG as the planner streams it, one complete line at a time, so each task can start
 * before the plan is finished. Accepted forms: one JSON task per line (`{"tool", "args", "deps"?}`,
 * `{"tool": "join"}` to end), the reference's text form (`1. tool(arg=…)`, `$1` / `${1}`, `join()`),
 * and, at the end, a whole JSON `{"tasks": [...]}` or native tool calls. A task that refers to itself,
 * to a task that does not exist or, while streaming, to one not listed before it is refused, as is
 * every task of a cycle in the whole-plan forms; each refusal says why.
 */
export class CompilerPlanParser {
  readonly #parameters = new Map<string, string[]>();
  readonly #defined = new Set<number>();
  /** Every number a task was written with so far, accepted or refused: "$n" embedded in text refers only to these. */
  readonly #numbered = new Set<number>();
  readonly #signatures = new Map<string, number>();
  #nextId: number;
  /** The unfinished line, in the pieces it streamed in: joined once, when its newline arrives. */
  #pending: string[] = [];
  #block: { text: string; line: number } | undefined;
  #line = 0;
  #joined = false;
  #accepted = 0;
  #refused = 0;

  constructor(opts: CompilerPlanParserOptions) {
    for (const tool of opts.tools) {
      this.#parameters.set(tool.name, Object.keys((tool.parameters as { properties?: object }).properties ?? {}));
    }
    let last = 0;
    for (const task of opts.finished ?? []) {
      this.#defined.add(task.id);
      this.#numbered.add(task.id);
      this.#signatures.set(signature(task.tool, task.args), task.repeats ?? task.id);
      last = Math.max(last, task.id);
    }
    this.#nextId = last + 1;
  }

  /** The number the next new task gets. */
  get nextId(): number {
    return this.#nextId;
  }

  /** Feeds streamed text; returns what the lines completed by it hold. */
  push(delta: string): PlanParseEvent[] {
    // Only the new text is searched for a newline, so a long line costs its length, not its square.
    const events: PlanParseEvent[] = [];
    let rest = delta;
    for (let newline = rest.indexOf("\n"); newline >= 0; newline = rest.indexOf("\n")) {
      this.#pending.push(rest.slice(0, newline));
      events.push(...this.#readLine(this.#takeLine()));
      rest = rest.slice(newline + 1);
    }
    if (rest !== "") this.#pending.push(rest);
    return events;
  }

  #takeLine(): string {
    const line = this.#pending.join("");
    this.#pending = [];
    return line;
  }

  /** Ends the plan: reads the last line, then falls back to the response's tool calls when the text held no plan. */
  end(response?: AssistantMessage): PlanParseEvent[] {
    const events = this.#readLine(this.#takeLine());
    if (this.#block) {
      events.push({ type: "error", message: `The JSON starting on line ${this.#block.line} never closed; it was ignored.` });
      this.#block = undefined;
    }
    const calls = response?.toolCalls ?? [];
    if (this.#accepted === 0 && this.#refused === 0 && calls.length > 0) {
      const raw: RawTask[] = [];
      for (const [index, call] of calls.entries()) {
        if (call.name === "join") break;
        const parsed = parseJsonWithinLimits(call.arguments || "{}");
        const args = "value" in parsed ? parsed.value : undefined;
        if (!isPlainObject(args)) {
          events.push(this.#refuse(`Tool call ${index + 1} (${call.name}): its arguments are not a JSON object.`));
          continue;
        }
        raw.push({ tool: call.name, args, deps: [], where: `tool call ${index + 1}` });
      }
      events.push(...this.#acceptBatch(raw));
    }
    if (this.#accepted === 0 && this.#refused === 0) {
      events.push(this.#refuse("No task was found in the plan. Write one task per line as described."));
    }
    return events;
  }

  #readLine(rawLine: string): PlanParseEvent[] {
    this.#line++;
    if (this.#joined) return [];
    const line = rawLine.replace(/<END_OF_PLAN>/g, "").trim();
    const events: PlanParseEvent[] = [];
    if (this.#block) {
      const block = this.#block;
      const joined = `${block.text}\n${line}`;
      const tooBig = argumentLimitProblem(joined);
      if (tooBig) {
        this.#block = undefined;
        return [this.#refuse(`The JSON starting on line ${block.line} was refused. ${tooBig}`)];
      }
      const value = tryJson(joined);
      if (value !== undefined) {
        this.#block = undefined;
        return this.#readJson(value, `the JSON starting on line ${block.line}`);
      }
      if (tryJson(line) === undefined && !TEXT_TASK.test(line) && !TEXT_JOIN.test(line)) {
        block.text += `\n${line}`;
        return [];
      }
      // The line stands on its own, so the open JSON was one broken line.
      this.#block = undefined;
      events.push(this.#refuse(`Line ${block.line} is not valid JSON: ${block.text.slice(0, 200)}`));
    }
    return [...events, ...this.#readOpenLine(line)];
  }

  #readOpenLine(line: string): PlanParseEvent[] {
    if (line === "" || line.startsWith("```")) return [];
    // The limits hold for every line: a task's arguments end up in a tool call either way.
    const tooBig = argumentLimitProblem(line);
    if (tooBig) return [this.#refuse(`Line ${this.#line} was refused. ${tooBig}`)];
    if (line.startsWith("{") || line.startsWith("[")) {
      const value = tryJson(line);
      if (value !== undefined) return this.#readJson(value, `line ${this.#line}`);
      this.#block = { text: line, line: this.#line };
      return [];
    }
    if (TEXT_JOIN.test(line)) {
      this.#joined = true;
      return [];
    }
    const match = TEXT_TASK.exec(line);
    if (!match) return []; // prose and "Thought:" lines carry no task
    const [, id, tool, argText] = match as unknown as [string, string, string, string];
    const parsed = parseCallArguments(argText, this.#parameters.get(tool) ?? []);
    if ("error" in parsed) return [this.#refuse(`Task ${id} (line ${this.#line}): ${parsed.error}`)];
    return [this.#acceptStreamed({ id: Number(id), tool, args: parsed.args, deps: [], where: `line ${this.#line}` })];
  }

  #readJson(value: unknown, where: string): PlanParseEvent[] {
    if (Array.isArray(value) || (isPlainObject(value) && Array.isArray(value["tasks"]))) {
      const items = (Array.isArray(value) ? value : value["tasks"]) as unknown[];
      const raw: RawTask[] = [];
      const events: PlanParseEvent[] = [];
      for (const [index, item] of items.entries()) {
        const task = toRawTask(item, `${where}, task ${index + 1}`);
        if ("error" in task) events.push(this.#refuse(task.error));
        else if (task.tool === "join") break;
        else raw.push(task);
      }
      this.#joined = true;
      return [...events, ...this.#acceptBatch(raw)];
    }
    const task = toRawTask(value, where);
    if ("error" in task) return [this.#refuse(task.error)];
    if (task.tool === "join") {
      this.#joined = true;
      return [];
    }
    return [this.#acceptStreamed(task)];
  }

  /** A streamed task may only use tasks defined before it, which also rules out cycles. */
  #acceptStreamed(raw: RawTask): PlanParseEvent {
    const id = raw.id ?? this.#nextId;
    const label = `Task ${id} (${raw.where})`;
    if (id < this.#nextId) {
      return this.#refuse(`${label}: number ${id} is taken by an earlier task; number new tasks from ${this.#nextId}.`);
    }
    const dependsOn = [...new Set([...raw.deps, ...referencedTasks(raw.args, id, (n) => this.#numbered.has(n))])];
    this.#numbered.add(id);
    const toolProblem = this.#toolProblem(raw.tool);
    if (toolProblem) return this.#refuse(`${label}: ${toolProblem}`);
    for (const dep of dependsOn) {
      if (dep === id) return this.#refuse(`${label} depends on itself, a cycle; use only results of earlier tasks.`);
      if (this.#defined.has(dep)) continue;
      if (dep > id) {
        return this.#refuse(`${label} refers to task ${dep}, which is not listed before it; a task can only use results of tasks above it.`);
      }
      return this.#refuse(`${label} refers to task ${dep}, which does not exist or was refused.`);
    }
    return this.#accept({ id, tool: raw.tool, args: raw.args, dependsOn });
  }

  /** A whole plan may list tasks in any order: check its references and cycles together, then accept in dependency order. */
  #acceptBatch(raws: RawTask[]): PlanParseEvent[] {
    const events: PlanParseEvent[] = [];
    const tasks = new Map<number, CompilerTask & { where: string }>();
    let next = this.#nextId;
    const numbered = raws.map((raw) => {
      const id = raw.id ?? next;
      next = Math.max(next, id + 1);
      return { raw, id };
    });
    // A whole plan may list tasks in any order: every number in it is a task, and a bare "$n" names
    // one only when numbered before the task using it, as in the line form.
    const inPlan = new Set([...this.#numbered, ...numbered.map(({ id }) => id)]);
    for (const { raw, id } of numbered) {
      const label = `Task ${id} (${raw.where})`;
      const toolProblem = this.#toolProblem(raw.tool);
      if (id < this.#nextId || tasks.has(id)) {
        events.push(this.#refuse(`${label}: number ${id} is already used; give each task its own number from ${this.#nextId}.`));
        continue;
      }
      this.#numbered.add(id);
      if (toolProblem) events.push(this.#refuse(`${label}: ${toolProblem}`));
      else {
        const dependsOn = [...new Set([...raw.deps, ...referencedTasks(raw.args, id, (n) => inPlan.has(n))])];
        tasks.set(id, { id, tool: raw.tool, args: raw.args, dependsOn, where: raw.where });
      }
    }
    for (const cycle of findCycles(tasks)) {
      events.push(this.#refuse(`Tasks ${[...cycle, cycle[0]].join(" → ")} form a cycle: none of them can start.`));
      for (const id of cycle) tasks.delete(id);
    }
    // Accept in dependency order; anything left waits on a missing or refused task.
    let progress = true;
    while (progress) {
      progress = false;
      for (const task of tasks.values()) {
        if (!task.dependsOn.every((dep) => this.#defined.has(dep))) continue;
        const { where: _where, ...plain } = task;
        events.push(this.#accept(plain));
        tasks.delete(task.id);
        progress = true;
      }
    }
    for (const task of tasks.values()) {
      const missing = task.dependsOn.filter((dep) => !this.#defined.has(dep));
      events.push(this.#refuse(`Task ${task.id} (${task.where}) refers to task ${missing.join(", ")}, which does not exist or was refused.`));
    }
    return events;
  }

  #accept(task: CompilerTask): PlanParseEvent {
    this.#defined.add(task.id);
    this.#nextId = Math.max(this.#nextId, task.id + 1);
    this.#accepted++;
    const key = signature(task.tool, task.args);
    const earlier = this.#signatures.get(key);
    if (earlier !== undefined) return { type: "task", task: { ...task, repeats: earlier } };
    this.#signatures.set(key, task.id);
    return { type: "task", task };
  }

  #refuse(message: string): PlanParseEvent {
    this.#refused++;
    return { type: "error", message };
  }

  #toolProblem(tool: string): string | undefined {
    if (this.#parameters.has(tool)) return undefined;
    return `unknown tool "${tool}"; use one of: ${[...this.#parameters.keys()].join(", ")}.`;
  }
}

function toRawTask(value: unknown, where: string): RawTask | { error: string } {
  if (!isPlainObject(value) || typeof value["tool"] !== "string") {
    return { error: `${where}: a task is a JSON object with a "tool" name, "args" and optional "deps".` };
  }
  const args = value["args"] ?? {};
  if (!isPlainObject(args)) return { error: `${where}: "args" must be a JSON object.` };
  const id = value["id"];
  if (id !== undefined && !(Number.isInteger(id) && (id as number) > 0)) return { error: `${where}: "id" must be a positive whole number.` };
  const deps = value["deps"] ?? value["dependsOn"] ?? [];
  if (!Array.isArray(deps) || !deps.every((d) => Number.isInteger(d))) return { error: `${where}: "deps" must be a list of task numbers.` };
  return { ...(id !== undefined ? { id: id as number } : {}), tool: value["tool"], args, deps: deps as number[], where };
}

/** Every cycle among the tasks (each reported once), found by depth-first search. */
function findCycles(tasks: ReadonlyMap<number, CompilerTask>): number[][] {
  const state = new Map<number, "active" | "done">();
  const stack: number[] = [];
  const cycles: number[][] = [];
  const visit = (id: number): void => {
    state.set(id, "active");
    stack.push(id);
    for (const dep of tasks.get(id)?.dependsOn ?? []) {
      if (!tasks.has(dep)) continue;
      if (state.get(dep) === "active") cycles.push(stack.slice(stack.indexOf(dep)));
      else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(id, "done");
  };
  for (const id of tasks.keys()) if (!state.has(id)) visit(id);
  const seen = new Set<number>();
  return cycles.filter((cycle) => {
    if (cycle.some((id) => seen.has(id))) return false;
    cycle.forEach((id) => seen.add(id));
    return true;
  });
}

function signature(tool: string, args: unknown): string {
  return `${tool} ${stableJson(args)}`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${stableJson(value[key])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

function tryJson(text: string): unknown {
  const parsed = parseJsonWithinLimits(text);
  return "value" in parsed ? parsed.value : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
