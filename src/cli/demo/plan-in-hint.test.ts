import { describe, expect, it } from "vitest";
import { PlanNotebook } from "../../planning/notebook/plan-notebook.js";
import { planInHint } from "./plan-in-hint.js";

const request = (hint: string | null) => ({
  messages: [{ role: "user" as const, content: "task" }, ...(hint ? [{ role: "user" as const, content: hint }] : [])],
  tools: [],
});

describe("planInHint", () => {
  it("reads each subtask's state off the notebook's hint, once each", async () => {
    const notebook = new PlanNotebook();
    const sub = (name: string) => ({ name, description: "d", expectedOutcome: "o" });
    await notebook.createPlan({ name: "P", description: "d", expectedOutcome: "o", subtasks: [sub("a"), sub("b"), sub("c"), sub("d")] });
    await notebook.finishSubtask(0, "ok");
    await notebook.updateSubtaskState(3, "abandoned");
    expect(planInHint(request(notebook.hint()))).toEqual([
      { name: "a", state: "done" },
      { name: "b", state: "in_progress" },
      { name: "c", state: "todo" },
      { name: "d", state: "abandoned" },
    ]);
  });

  it("sees no plan in the no-plan hint, the finished-plan hint or no hint", async () => {
    const notebook = new PlanNotebook();
    expect(planInHint(request(notebook.hint()))).toBeNull();
    await notebook.createPlan({ name: "P", description: "d", expectedOutcome: "o", subtasks: [{ name: "a", description: "d", expectedOutcome: "o" }] });
    await notebook.finishSubtask(0, "ok");
    await notebook.finishPlan("done", "all done");
    expect(planInHint(request(notebook.hint()))).toBeNull();
    expect(planInHint(request(null))).toBeNull();
  });
});
