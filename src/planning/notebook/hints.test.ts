import { describe, expect, it } from "vitest";
import { defaultPlanToHint, finishedPlanHint, wrapHint } from "./hints.js";
import { Plan, type PlanState } from "./plan.js";

function planWith(...states: PlanState[]): Plan {
  return new Plan({
    name: "Launch",
    description: "d",
    expectedOutcome: "o",
    state: states.every((s) => s === "todo") ? "todo" : "in_progress",
    subtasks: states.map((state, i) => ({ name: `step ${i}`, description: `do ${i}`, expectedOutcome: `result ${i}`, state })),
  });
}

describe("default plan hints", () => {
  it("without a plan: plan first with create_plan when the request is complex, else act directly", () => {
    const hint = defaultPlanToHint(null);
    expect(hint).toContain("'create_plan'");
    expect(hint).toMatch(/complex/);
    expect(hint).toMatch(/simple, do it directly/);
  });

  it("with every subtask todo: shows the plan and says to start subtask 0 with update_subtask_state", () => {
    const plan = planWith("todo", "todo");
    const hint = defaultPlanToHint(plan);
    expect(hint).toContain(`\`\`\`\n${plan.toMarkdown()}\n\`\`\``);
    expect(hint).toContain("'update_subtask_state' with subtask_idx=0 and state='in_progress'");
    expect(hint).toContain("'revise_current_plan'");
    expect(hint).toContain("'finish_plan' with state='abandoned'");
  });

  it("with a subtask in progress: shows its details and says to finish it with finish_subtask", () => {
    const plan = planWith("done", "in_progress", "todo");
    const hint = defaultPlanToHint(plan);
    expect(hint).toContain(plan.toMarkdown());
    expect(hint).toContain("Subtask 1, 'step 1', is in progress");
    expect(hint).toContain(plan.subtasks[1]!.toMarkdown(true));
    expect(hint).toContain("'finish_subtask' with subtask_idx=1");
    expect(hint).toContain("'revise_current_plan'");
  });

  it("with some finished and none in progress: names the next todo subtask to start", () => {
    const hint = defaultPlanToHint(planWith("done", "abandoned", "todo", "todo"));
    expect(hint).toContain("2 of 4 subtasks are done or abandoned and none is in progress");
    expect(hint).toContain("'update_subtask_state' with subtask_idx=2 and state='in_progress'");
  });

  it("with every subtask done or abandoned: says to call finish_plan and summarise for the user", () => {
    const hint = defaultPlanToHint(planWith("done", "abandoned"));
    expect(hint).toContain("'finish_plan' with state='done'");
    expect(hint).toMatch(/tell the user/);
  });

  it("right after finish_plan: says to answer the user, not to plan again", () => {
    const plan = planWith("done");
    plan.state = "done";
    plan.outcome = "Launched.";
    const hint = finishedPlanHint(plan);
    expect(hint).toContain("'Launch' has just been finished as done, with this outcome: Launched.");
    expect(hint).toMatch(/answer the user/);
  });

  it("wraps text in the system-hint tag", () => {
    expect(wrapHint("x")).toBe("<system-hint>x</system-hint>");
  });
});
