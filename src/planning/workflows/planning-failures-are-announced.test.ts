// Regression: a planner that answered with something unusable twice left the run to go on without
// its plan (the whole task as one step, or an answer from the task alone) with exit 0 and no word.
// Each such fallback is now a `planning-failed` event saying why and what the run did instead.
import { describe, expect, it } from "vitest";
import { Agent, LLMCompiler, PlanAndExecute, PlanTool, Rewoo, scriptedModel, type AgentEvent, type Workflow } from "../../index.js";

type Failure = Extract<AgentEvent, { type: "planning-failed" }>;

async function failures(make: (onEvent: (event: AgentEvent) => void) => Workflow): Promise<Failure[]> {
  const seen: Failure[] = [];
  await make((event) => void (event.type === "planning-failed" && seen.push(event))).run("Summarise the notes");
  return seen;
}

const junk = "Sure! I will get right on it.";

describe("a planner that gives nothing usable is announced, with what the run does instead", () => {
  it("plan-and-execute: the whole task as one step, and a replanner that fails keeps the plan", async () => {
    const seen = await failures((onEvent) => new PlanAndExecute({ model: scriptedModel([junk, junk, junk]), executorModel: scriptedModel(["did it"]), onEvent }));
    expect(seen.map((e) => [e.workflow, e.round, e.instead, e.errors.length])).toEqual([
      ["plan-and-execute", 1, "task-as-one-step", 2],
      ["plan-and-execute", 2, "keep-remaining-steps", 1],
    ]);
    expect(seen[0]?.errors[0]).toMatch(/JSON/);
  });

  it("ReWOO: the solver answers from the task alone", async () => {
    const seen = await failures((onEvent) => new Rewoo({ model: scriptedModel([junk, junk, "an answer"]), tools: [], onEvent }));
    expect(seen.map((e) => [e.workflow, e.instead, e.errors.length])).toEqual([["rewoo", "answer-without-steps", 2]]);
  });

  it("LLM compiler: a plan without a task to run", async () => {
    const joiner = scriptedModel([JSON.stringify({ action: "finish", answer: "a guess" })]);
    const seen = await failures((onEvent) => new LLMCompiler({ model: scriptedModel([junk]), joinerModel: joiner, tools: [], onEvent }));
    expect(seen.map((e) => [e.workflow, e.instead])).toEqual([["llm-compiler", "answer-without-steps"]]);
  });

  it("the plan tool, inside an agent: the event reaches the agent's stream", async () => {
    const events: AgentEvent[] = [];
    const planTool = new PlanTool({ model: scriptedModel(["did it"]), plannerModel: scriptedModel([junk, junk]), tools: [] });
    const agent = new Agent({ model: scriptedModel([{ toolCalls: [{ name: "plan", arguments: { task: "Summarise the notes" } }] }, "done"]), plugins: [planTool] });
    agent.on((event) => events.push(event));
    await agent.run("Summarise the notes");
    expect(events.filter((e): e is Failure => e.type === "planning-failed").map((e) => [e.workflow, e.instead])).toEqual([["plan-tool", "task-as-one-step"]]);
  });

  it("a planner that answers well announces nothing", async () => {
    const seen = await failures((onEvent) => new PlanAndExecute({ model: scriptedModel(['{"steps": ["Read"]}', '{"answer": "ok"}']), executorModel: scriptedModel(["read"]), onEvent }));
    expect(seen).toEqual([]);
  });
});
