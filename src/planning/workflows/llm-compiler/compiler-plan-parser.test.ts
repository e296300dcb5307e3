import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../core/tool.js";
import { CompilerPlanParser, type PlanParseEvent } from "./compiler-plan-parser.js";

const tools = [
  defineTool({ name: "search", description: "", parameters: z.object({ query: z.string() }), execute: () => "" }),
  defineTool({ name: "math", description: "", parameters: z.object({ problem: z.string(), context: z.array(z.string()).optional() }), execute: () => "" }),
];

function parseAll(text: string, chunk = 7, parser = new CompilerPlanParser({ tools })): PlanParseEvent[] {
  const events: PlanParseEvent[] = [];
  for (let at = 0; at < text.length; at += chunk) events.push(...parser.push(text.slice(at, at + chunk)));
  events.push(...parser.end());
  return events;
}

const summary = (events: PlanParseEvent[]) =>
  events.map((e) => (e.type === "task" ? `${e.task.id}:${e.task.tool}<-[${e.task.dependsOn.join(",")}]${e.task.repeats ? `=${e.task.repeats}` : ""}` : `error:${e.message}`));

describe("CompilerPlanParser", () => {
  it("reads JSON task lines as they stream, ignoring prose, and stops at join", () => {
    const text = [
      "Here is the plan:",
      '{"id": 1, "tool": "search", "args": {"query": "a"}}',
      '{"tool": "search", "args": {"query": "b"}}',
      '{"tool": "math", "args": {"problem": "$1 + ${2}"}, "deps": [1]}',
      '{"tool": "join"}',
      '{"tool": "search", "args": {"query": "after join"}}',
    ].join("\n");
    expect(summary(parseAll(text))).toEqual(["1:search<-[]", "2:search<-[]", "3:math<-[1,2]"]);
  });

  it("emits a task as soon as its line is complete", () => {
    const parser = new CompilerPlanParser({ tools });
    expect(parser.push('{"tool": "search", "args": {"query": "a"}}')).toEqual([]);
    expect(summary(parser.push("\n{"))).toEqual(["1:search<-[]"]);
  });

  it("reads the reference's text form with $n and ${n}", () => {
    const text = [
      "Thought: look both up",
      '1. search(query="GDP of France")',
      "2. search('GDP of Spain')",
      '3. math(problem="ratio", context=["$1", ${2}])',
      "4. join()<END_OF_PLAN>",
    ].join("\n");
    const events = parseAll(text);
    expect(summary(events)).toEqual(["1:search<-[]", "2:search<-[]", "3:math<-[1,2]"]);
    expect(events[2]).toMatchObject({ task: { args: { problem: "ratio", context: ["$1", "${2}"] } } });
  });

  it("refuses self references, forward references, missing tasks and unknown tools while streaming", () => {
    const text = [
      '1. search(query="$1")',
      '2. math(problem="$3")',
      '3. search(query="x")',
      '4. math(problem="$2")',
      '5. fly(to="moon")',
    ].join("\n");
    expect(summary(parseAll(text))).toEqual([
      "error:Task 1 (line 1) depends on itself, a cycle; use only results of earlier tasks.",
      "error:Task 2 (line 2) refers to task 3, which is not listed before it; a task can only use results of tasks above it.",
      "3:search<-[]",
      "error:Task 4 (line 4) refers to task 2, which does not exist or was refused.",
      'error:Task 5 (line 5): unknown tool "fly"; use one of: search, math.',
    ]);
  });

  it("refuses cycles and missing references in a whole JSON plan, accepting the rest in dependency order", () => {
    const plan = {
      tasks: [
        { id: 1, tool: "math", args: { problem: "$2" } },
        { id: 2, tool: "search", args: { query: "x" } },
        { id: 3, tool: "math", args: { problem: "$4" } },
        { id: 4, tool: "math", args: { problem: "$3" } },
        { id: 5, tool: "math", args: { problem: "$3 and $2" } },
        { id: 6, tool: "search", args: { query: "$7" } },
      ],
    };
    expect(summary(parseAll(JSON.stringify(plan, null, 2)))).toEqual([
      "error:Tasks 3 → 4 → 3 form a cycle: none of them can start.",
      "2:search<-[]",
      "1:math<-[2]",
      "error:Task 5 (the JSON starting on line 1, task 5) refers to task 3, which does not exist or was refused.",
      "error:Task 6 (the JSON starting on line 1, task 6) refers to task 7, which does not exist or was refused.",
    ]);
  });

  it("in a whole plan, reads an embedded $n as a reference only when n is a task of the plan", () => {
    const plan = { tasks: [{ id: 2, tool: "math", args: { problem: "$1 plus $9 off, $$1 fee" } }, { id: 1, tool: "search", args: { query: "x" } }] };
    const events = parseAll(JSON.stringify(plan));
    expect(summary(events)).toEqual(["1:search<-[]", "2:math<-[1]"]);
  });

  it("continues numbering after earlier rounds and marks repeats of finished tasks", () => {
    const finished = [
      { id: 1, tool: "search", args: { query: "a" }, dependsOn: [] },
      { id: 2, tool: "math", args: { problem: "$1" }, dependsOn: [1] },
    ];
    const parser = new CompilerPlanParser({ tools, finished });
    const text = ['{"id": 2, "tool": "search", "args": {"query": "b"}}', '{"tool": "search", "args": {"query": "a"}}', '{"tool": "math", "args": {"problem": "$3 and $2"}}'].join("\n");
    expect(summary(parseAll(text, 5, parser))).toEqual([
      "error:Task 2 (line 1): number 2 is taken by an earlier task; number new tasks from 3.",
      "3:search<-[]=1",
      "4:math<-[3,2]",
    ]);
  });

  it("falls back to native tool calls, and explains a plan with no task", () => {
    const parser = new CompilerPlanParser({ tools });
    parser.push("I will call the tools.");
    const events = parser.end({
      role: "assistant",
      content: "I will call the tools.",
      toolCalls: [
        { id: "a", name: "search", arguments: '{"query": "x"}' },
        { id: "b", name: "math", arguments: '{"problem": "$1"}' },
      ],
    });
    expect(summary(events)).toEqual(["1:search<-[]", "2:math<-[1]"]);
    expect(summary(parseAll("Sorry, I cannot plan this."))).toEqual(["error:No task was found in the plan. Write one task per line as described."]);
  });

  it("refuses a broken JSON line without losing the lines after it", () => {
    const text = ['{"tool": "search", "args": {query: "a"}}', '{"tool": "search", "args": {"query": "b"}}'].join("\n");
    expect(summary(parseAll(text))).toEqual(['error:Line 1 is not valid JSON: {"tool": "search", "args": {query: "a"}}', "1:search<-[]"]);
  });
});
