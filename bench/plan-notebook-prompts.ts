// Tokens the plan notebook adds to model requests: each hint case for a seven-subtask plan, and
// the eight tool specs (sent with every request).
import { defaultPlanToHint, finishedPlanHint, wrapHint } from "../src/planning/notebook/hints.js";
import { Plan } from "../src/planning/notebook/plan.js";
import { PlanNotebook } from "../src/planning/notebook/plan-notebook.js";
import type { Benchmark, BenchFigure } from "./figure.js";
import { countTokens } from "./tokens.js";

function sevenStepPlan(states: Plan["state"][]): Plan {
  return new Plan({
    name: "Industry report on agent startups",
    description: "Research the market for agent startups: trends, players, demand and recommendations.",
    expectedOutcome: "A complete industry report with the main findings.",
    state: "in_progress",
    subtasks: states.map((state, i) => ({
      name: `Step ${i + 1} of the report`,
      description: `Do part ${i + 1} of the research and write down what it found.`,
      expectedOutcome: `The findings of part ${i + 1}.`,
      state,
      ...(state === "done" ? { outcome: `Findings of part ${i + 1}.` } : {}),
    })),
  });
}

export const planNotebookPromptsBenchmark: Benchmark = {
  name: "plan-notebook-prompts",
  async run(): Promise<BenchFigure[]> {
    const todo = Array<Plan["state"]>(7).fill("todo");
    const cases: [string, string][] = [
      ["no-plan", defaultPlanToHint(null)],
      ["all-todo", defaultPlanToHint(sevenStepPlan(todo))],
      ["in-progress", defaultPlanToHint(sevenStepPlan(["done", "done", "in_progress", "todo", "todo", "todo", "todo"]))],
      ["between-subtasks", defaultPlanToHint(sevenStepPlan(["done", "done", "done", "todo", "todo", "todo", "todo"]))],
      ["all-finished", defaultPlanToHint(sevenStepPlan(["done", "done", "done", "done", "abandoned", "done", "done"]))],
      ["just-finished", finishedPlanHint(Object.assign(sevenStepPlan(todo), { state: "done", outcome: "The report." }))],
    ];
    const figures = cases.map(([name, text]): BenchFigure => ({ bench: "plan-notebook-prompts", metric: `hint-tokens.${name}`, value: countTokens(wrapHint(text)) }));
    const specs = new PlanNotebook().tools().map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }));
    figures.push({ bench: "plan-notebook-prompts", metric: "tool-spec-tokens", value: countTokens(JSON.stringify(specs)) });
    return figures;
  },
};
