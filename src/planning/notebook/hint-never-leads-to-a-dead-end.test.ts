// Regression: with subtask 0 in progress, adding a subtask before it was accepted; the hint then said
// to finish the in-progress subtask, which was refused ("subtask 0 comes before…"), and finishing the
// new one was refused too. Every change that would put a todo subtask before the one in progress is
// refused, saying where the subtask may go instead.
import { describe, expect, it } from "vitest";
import { PlanNotebook } from "./plan-notebook.js";

async function started(subtasks = 2) {
  const notebook = new PlanNotebook();
  const tools = new Map(notebook.tools().map((t) => [t.name, t]));
  const call = (name: string, args: object) => tools.get(name)!.invoke(args);
  const steps = Array.from({ length: subtasks }, (_, i) => ({ name: `s${i}`, description: "d", expected_outcome: "o" }));
  await call("create_plan", { name: "P", description: "d", expected_outcome: "o", subtasks: steps });
  return { notebook, call };
}

const extra = { name: "new", description: "d", expected_outcome: "o" };

describe("the notebook's rules never contradict its hint", () => {
  it("refuses adding a subtask at or before the one in progress, naming where it may go", async () => {
    const { notebook, call } = await started();
    await call("update_subtask_state", { subtask_idx: 0, state: "in_progress" });
    const before = notebook.saveState();
    const refused = await call("revise_current_plan", { subtask_idx: 0, action: "add", subtask: extra });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("Subtask 0 's0' is in progress");
    expect(refused.text).toContain("subtask_idx 1 to 2");
    expect(notebook.saveState()).toEqual(before);

    expect((await call("revise_current_plan", { subtask_idx: 1, action: "add", subtask: extra })).isError).toBe(false);
    expect(notebook.hint()).toContain("call 'finish_subtask' with subtask_idx=0");
    expect((await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "x" })).isError).toBe(false);
    expect(notebook.currentPlan?.subtasks.map((s) => `${s.name}:${s.state}`)).toEqual(["s0:done", "new:in_progress", "s1:todo"]);
  });

  it("refuses setting a subtask before the one in progress back to todo", async () => {
    const { notebook, call } = await started(3);
    await call("update_subtask_state", { subtask_idx: 0, state: "abandoned" });
    await call("update_subtask_state", { subtask_idx: 1, state: "in_progress" });
    const refused = await call("update_subtask_state", { subtask_idx: 0, state: "todo" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("Subtask 1 's1' is in progress");
    expect(notebook.hint()).toContain("call 'finish_subtask' with subtask_idx=1");
    expect((await call("finish_subtask", { subtask_idx: 1, subtask_outcome: "x" })).isError).toBe(false);
  });
});
