import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../core/tool.js";
import { scriptedModel, type ScriptedTurn } from "../../../models/scripted.js";
import { LLMCompiler } from "./llm-compiler.js";

/** A lookup that records each query it received and answers `<query>`. */
function lookup(queries: string[]) {
  return defineTool({
    name: "lookup",
    description: "Look a fact up.",
    parameters: z.object({ query: z.string() }),
    readOnly: true,
    execute: ({ query }) => {
      queries.push(query);
      return `<${query}>`;
    },
  });
}

const line = (task: object) => `${JSON.stringify(task)}\n`;
const finish = JSON.stringify({ action: "finish", answer: "ok" });

async function runPlan(plan: ScriptedTurn) {
  const queries: string[] = [];
  const compiler = new LLMCompiler({ model: scriptedModel([plan]), joinerModel: scriptedModel([finish]), tools: [lookup(queries)] });
  const { trace } = await compiler.run("Shop");
  return { queries, trace };
}

describe("LLM compiler: a dollar sign is text unless it is a reference to a task above", () => {
  it("sends prices and amounts as written, in a plan whose numbers they could be mistaken for", async () => {
    const { queries, trace } = await runPlan(
      line({ id: 1, tool: "lookup", args: { query: "laptops under $500" } }) +
        line({ id: 2, tool: "lookup", args: { query: "coupons worth $2 off" } }) +
        line({ id: 3, tool: "lookup", args: { query: "bags at $1.50 or $3,000, US$1 and the $1st prize" } }) +
        line({ tool: "join" }),
    );
    expect(trace.plans[0]?.errors).toEqual([]);
    expect(trace.plans[0]?.steps.map((s) => s.dependsOn)).toEqual([[], [], []]);
    expect(queries).toEqual(["laptops under $500", "coupons worth $2 off", "bags at $1.50 or $3,000, US$1 and the $1st prize"]);
  });

  it("replaces references to tasks above, bare or braced, and keeps a doubled dollar as one", async () => {
    const { queries, trace } = await runPlan(
      line({ id: 1, tool: "lookup", args: { query: "a" } }) +
        line({ id: 2, tool: "lookup", args: { query: "b" } }) +
        line({ id: 3, tool: "lookup", args: { query: "compare $1 with ${2}, coupons worth $$2 off, under $500" } }) +
        line({ id: 4, tool: "lookup", args: { query: "$3" } }) +
        line({ tool: "join" }),
    );
    expect(trace.plans[0]?.steps.map((s) => s.dependsOn)).toEqual([[], [], ["1", "2"], ["3"]]);
    const third = "compare <a> with <b>, coupons worth $2 off, under $500";
    expect(queries).toEqual(["a", "b", third, `<${third}>`]);
  });

  it("still refuses a whole-argument or braced reference to a task that is not above", async () => {
    const { queries, trace } = await runPlan(
      line({ id: 1, tool: "lookup", args: { query: "$500" } }) +
        line({ id: 2, tool: "lookup", args: { query: "use ${7} here" } }) +
        line({ id: 3, tool: "lookup", args: { query: "$$500" } }) +
        line({ tool: "join" }),
    );
    expect(trace.plans[0]?.errors).toEqual([
      "Task 1 (line 1) refers to task 500, which is not listed before it; a task can only use results of tasks above it.",
      "Task 2 (line 2) refers to task 7, which is not listed before it; a task can only use results of tasks above it.",
    ]);
    expect(queries).toEqual(["$500"]);
  });
});

// Regression: in a whole JSON plan, a bare array or native tool calls, any "$n" naming any task of the
// plan was replaced, so "coffee under $2" was sent as "coffee under <tea>" when task 2 came after it.
describe("LLM compiler: one rule for a bare $n in every plan form", () => {
  const coffee = { tool: "lookup", args: { query: "coffee under $2" } };
  const tea = { tool: "lookup", args: { query: "tea" } };
  const compare = { tool: "lookup", args: { query: "compare $1 and $2" } };
  const forms: [string, (tasks: object[]) => ScriptedTurn][] = [
    ["task lines", (tasks) => tasks.map((task) => line(task)).join("") + line({ tool: "join" })],
    ['a {"tasks": [...]} reply', (tasks) => JSON.stringify({ tasks })],
    ["a bare JSON array", (tasks) => JSON.stringify(tasks)],
    ["native tool calls", (tasks) => ({ toolCalls: tasks.map((task) => ({ name: "lookup", arguments: (task as typeof tea).args })) })],
  ];

  for (const [form, write] of forms) {
    it(`${form}: "$2" stays text when task 2 is below, and names tasks above`, async () => {
      const { queries, trace } = await runPlan(write([coffee, tea, compare]));
      expect(trace.plans[0]?.errors).toEqual([]);
      expect(trace.plans[0]?.steps.map((s) => s.dependsOn)).toEqual([[], [], ["1", "2"]]);
      expect(queries).toEqual(["coffee under $2", "tea", "compare <coffee under $2> and <tea>"]);
    });
  }

  it("a whole plan's dependency listed on a task below keeps a price with its number as text", async () => {
    const { queries, trace } = await runPlan(JSON.stringify({ tasks: [{ id: 1, ...coffee, deps: [2] }, { id: 2, ...tea }] }));
    expect(trace.plans[0]?.steps.map((s) => [s.id, s.dependsOn])).toEqual([["2", []], ["1", ["2"]]]);
    expect(queries).toEqual(["tea", "coffee under $2"]);
  });
});
