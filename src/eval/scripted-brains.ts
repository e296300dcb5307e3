import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ChatModel, ModelRequest } from "../core/model.js";
import { reactiveModel, type ScriptedTurn } from "../models/scripted.js";
import type { ModelRole, ModelsByRole, StrategyName } from "../runs/strategies.js";
import type { EvalTask } from "./eval-task.js";

/** `--model scripted:demo`: offline brains that prove the harness, never a strategy. */
export const SCRIPTED_DEMO = "scripted:demo";

/**
 * What the demo does on a task: solve it from the task's solution/, or fail in one chosen way, so
 * that every outcome the eval reports is exercised. "flaky" solves odd-numbered trials only.
 */
type DemoBehaviour = "solve" | "flaky" | "wrong" | "ask" | "loop" | "crash";

/**
 * The built-in suite's demo script. A task not named here (a user's own) is solved when it has a
 * solution/ folder and answered wrongly when it has none.
 */
const DEMO_BEHAVIOUR: Readonly<Record<string, DemoBehaviour>> = {
  "code-discounts-feature": "loop",
  "code-csv-quotes": "wrong",
  "data-clean-dates": "ask",
  "data-orders-json": "flaky",
  "research-config-audit": "wrong",
  "research-incident-count": "crash",
};

function demoBehaviour(task: EvalTask): DemoBehaviour {
  return DEMO_BEHAVIOUR[task.id] ?? (task.solutionDir ? "solve" : "wrong");
}

type Solution = { files: { path: string; content: string }[]; answer: string };

/** The task's reference solution: solution/files/ laid over the workspace and solution/answer.md. */
export function readSolution(task: EvalTask): Solution {
  if (!task.solutionDir) return { files: [], answer: "" };
  const filesDir = join(task.solutionDir, "files");
  const files: Solution["files"] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push({ path: relative(filesDir, path).split("\\").join("/"), content: readFileSync(path, "utf8") });
    }
  };
  if (existsSync(filesDir)) walk(filesDir);
  const answerFile = join(task.solutionDir, "answer.md");
  return { files, answer: existsSync(answerFile) ? readFileSync(answerFile, "utf8").trim() : "" };
}

/** The scripted models for one trial of a task under a strategy. */
export function demoBrains(task: EvalTask, strategy: StrategyName, trial: number): ModelsByRole {
  const chosen = demoBehaviour(task);
  const behaviour: DemoBehaviour = chosen === "flaky" ? (trial % 2 === 1 ? "solve" : "wrong") : chosen;
  const solution = readSolution(task);
  const script = new DemoScript(task, strategy, behaviour, solution);
  const models = new Map<ModelRole, ChatModel>();
  return (role) => {
    let model = models.get(role);
    if (!model) models.set(role, (model = reactiveModel((req) => script.turn(role, req), { id: `${SCRIPTED_DEMO}/${strategy}/${role}` })));
    return model;
  };
}

const WRONG_ANSWER = "I have finished the task.";
const STEP = "Make the change the task asks for";

/** What a request shows: the calls made and answered so far, the assistant turns, the text. */
function readCalls(req: ModelRequest): { turns: number; answered: { name: string; args: Record<string, unknown> }[]; text: string } {
  const pending = new Map<string, { name: string; args: Record<string, unknown> }>();
  const answered: { name: string; args: Record<string, unknown> }[] = [];
  let turns = 0;
  for (const m of req.messages) {
    if (m.role === "assistant") {
      turns++;
      for (const call of m.toolCalls ?? []) pending.set(call.id, { name: call.name, args: JSON.parse(call.arguments) as Record<string, unknown> });
    } else if (m.role === "tool") {
      const call = pending.get(m.toolCallId);
      if (call) answered.push(call);
    }
  }
  return { turns, answered, text: req.messages.map((m) => m.content).join("\n") };
}

const call = (name: string, args: Record<string, unknown>): ScriptedTurn => ({ toolCalls: [{ name, arguments: args }] });

/** One trial's script: each answer follows from the request alone, so a resumed run picks up where it stopped. */
class DemoScript {
  constructor(
    private readonly task: EvalTask,
    private readonly strategy: StrategyName,
    private readonly behaviour: Exclude<DemoBehaviour, "flaky">,
    private readonly solution: Solution,
  ) {}

  private get answer(): string {
    return this.behaviour === "solve" ? this.solution.answer || `Done: ${this.task.title}.` : WRONG_ANSWER;
  }

  turn(role: ModelRole, req: ModelRequest): ScriptedTurn {
    if (this.behaviour === "crash") throw new Error(`the scripted demo fails ${this.task.id} on purpose, to show how an error is counted`);
    const seen = readCalls(req);
    switch (this.strategy) {
      case "react":
      case "notebook":
      case "tasks":
      case "todos":
        return this.agent(seen);
      case "plan-tool":
        if (role === "planner") return JSON.stringify({ subtasks: [STEP] });
        if (role === "executor") return this.work(seen) ?? "The change is made.";
        if (this.behaviour !== "solve") return this.answer;
        return seen.answered.some((c) => c.name === "plan") ? this.answer : call("plan", { task: this.task.prompt });
      case "plan-execute":
        if (role === "executor") return this.work(seen) ?? "The change is made.";
        if (this.behaviour !== "solve" || seen.text.includes("Steps done and their results")) return JSON.stringify({ answer: this.answer });
        return JSON.stringify({ steps: [STEP] });
      case "rewoo":
        if (role === "solver" || role === "executor") return this.answer;
        return JSON.stringify({ steps: this.oneShot().map(({ name, args }, i) => ({ plan: `Step ${i + 1}`, id: `#E${i + 1}`, tool: name, input: args })) });
      case "compiler": {
        if (role === "joiner") return JSON.stringify({ action: "finish", answer: this.answer });
        // In a compiler plan "$$" is a literal "$" ("$1" would be task 1's result), as the compiler's prompt says.
        const literal = (args: Record<string, unknown>) =>
          Object.fromEntries(Object.entries(args).map(([k, v]) => [k, typeof v === "string" ? v.replace(/\$/g, () => "$$") : v]));
        const tasks = this.oneShot().map(({ name, args }, i) => ({ id: i + 1, tool: name, args: literal(args) }));
        return [...tasks, { tool: "join" }].map((t) => JSON.stringify(t)).join("\n");
      }
    }
  }

  /** The planning strategies' agents make their planning call first; the baseline has none. */
  private agent(seen: ReturnType<typeof readCalls>): ScriptedTurn {
    if (seen.turns === 0) {
      const planning = this.planningCall();
      if (planning) return planning;
    }
    if (this.behaviour === "ask") return call("ask_user", { question: "Which output format do you want?" });
    if (this.behaviour === "loop") return call("list_dir", { path: "." });
    if (this.behaviour === "wrong") return this.answer;
    return this.work(seen) ?? this.answer;
  }

  private planningCall(): ScriptedTurn | undefined {
    const step = { name: STEP, description: this.task.title, expected_outcome: "The task's check passes." };
    if (this.strategy === "notebook") return call("create_plan", { name: this.task.title, description: this.task.title, expected_outcome: "Done.", subtasks: [step] });
    if (this.strategy === "todos") return call("write_todos", { todos: [{ content: STEP, status: "in_progress" }] });
    if (this.strategy === "tasks") return call("TaskCreate", { subject: STEP, description: this.task.title });
    return undefined;
  }

  /** The next piece of work a solving agent does (a corpus search, then one file per turn); undefined when done. */
  private work(seen: ReturnType<typeof readCalls>): ScriptedTurn | undefined {
    if (this.behaviour !== "solve") return undefined;
    if (this.task.tools.includes("corpus") && !seen.answered.some((c) => c.name === "search_corpus")) return call("search_corpus", { query: this.task.title });
    const written = new Set(seen.answered.filter((c) => c.name === "write_file").map((c) => String(c.args["path"])));
    const next = this.solution.files.find((file) => !written.has(file.path));
    return next ? call("write_file", { path: next.path, content: next.content }) : undefined;
  }

  /** The calls a workflow plans up front: the corpus search and every file; a non-solving plan only looks. */
  private oneShot(): { name: string; args: Record<string, unknown> }[] {
    if (this.behaviour !== "solve") return [{ name: "list_dir", args: { path: "." } }];
    const search = this.task.tools.includes("corpus") ? [{ name: "search_corpus", args: { query: this.task.title } }] : [];
    const writes = this.solution.files.map((file) => ({ name: "write_file", args: { path: file.path, content: file.content } }));
    const calls = [...search, ...writes];
    return calls.length > 0 ? calls : [{ name: "list_dir", args: { path: "." } }];
  }
}
