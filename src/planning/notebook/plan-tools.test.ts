import { describe, expect, it } from "vitest";
import { PlanNotebook, type PlanNotebookOptions } from "./plan-notebook.js";

const THREE_STEPS = {
  name: "Ship the release",
  description: "Cut, test and publish version 2.",
  expected_outcome: "Version 2 on the registry.",
  subtasks: [
    { name: "Cut", description: "Tag the release.", expected_outcome: "A tag." },
    { name: "Test", description: "Run the suite.", expected_outcome: "Green tests." },
    { name: "Publish", description: "Push the package.", expected_outcome: "A published package." },
  ],
};

function setup(opts: PlanNotebookOptions = {}) {
  const notebook = new PlanNotebook(opts);
  const tools = new Map(notebook.tools().map((tool) => [tool.name, tool]));
  const call = (name: string, args: unknown = {}) => {
    const tool = tools.get(name);
    if (!tool) throw new Error(`no tool ${name}`);
    return tool.invoke(args);
  };
  const states = () => notebook.currentPlan?.subtasks.map((s) => s.state);
  return { notebook, call, states };
}

async function withPlan(opts: PlanNotebookOptions = {}) {
  const kit = setup(opts);
  expect((await kit.call("create_plan", THREE_STEPS)).isError).toBe(false);
  return kit;
}

describe("plan notebook tools", () => {
  it("offers the eight reference tools, with the two viewers read-only", () => {
    const { notebook } = setup();
    expect(notebook.tools().map((t) => [t.name, t.readOnly])).toEqual([
      ["create_plan", false],
      ["view_subtasks", true],
      ["update_subtask_state", false],
      ["finish_subtask", false],
      ["revise_current_plan", false],
      ["finish_plan", false],
      ["view_historical_plans", true],
      ["recover_historical_plan", false],
    ]);
  });

  it("every tool but create_plan and view_historical_plans says to create a plan when there is none", async () => {
    const { call } = setup();
    const calls: [string, unknown][] = [
      ["view_subtasks", { subtask_idx: [0] }],
      ["update_subtask_state", { subtask_idx: 0, state: "todo" }],
      ["finish_subtask", { subtask_idx: 0, subtask_outcome: "x" }],
      ["revise_current_plan", { subtask_idx: 0, action: "delete" }],
      ["finish_plan", { state: "abandoned", outcome: "x" }],
    ];
    for (const [name, args] of calls) {
      const result = await call(name, args);
      expect(result.isError, name).toBe(true);
      expect(result.text, name).toContain("'create_plan'");
    }
    expect(await call("view_historical_plans")).toEqual({ text: "There are no archived plans.", isError: false });
  });

  describe("create_plan", () => {
    it("creates a todo plan with todo subtasks and reports it", async () => {
      const { call, notebook } = setup();
      const result = await call("create_plan", THREE_STEPS);
      expect(result).toEqual({ text: "Plan 'Ship the release' is created with 3 subtasks.", isError: false });
      expect(notebook.currentPlan).toMatchObject({ name: "Ship the release", expectedOutcome: "Version 2 on the registry.", state: "todo" });
      expect(notebook.currentPlan?.subtasks.map((s) => [s.name, s.expectedOutcome, s.state])).toEqual([
        ["Cut", "A tag.", "todo"],
        ["Test", "Green tests.", "todo"],
        ["Publish", "A published package.", "todo"],
      ]);
    });

    it("accepts subtasks sent as a JSON string", async () => {
      const { call, notebook } = setup();
      const result = await call("create_plan", { ...THREE_STEPS, subtasks: JSON.stringify(THREE_STEPS.subtasks) });
      expect(result.isError).toBe(false);
      expect(notebook.currentPlan?.subtasks).toHaveLength(3);
    });

    it("refuses more subtasks than maxSubtasks, saying the limit", async () => {
      const { call, notebook } = setup({ maxSubtasks: 2 });
      const result = await call("create_plan", THREE_STEPS);
      expect(result.isError).toBe(true);
      expect(result.text).toContain("at most 2 subtasks");
      expect(result.text).toContain("'create_plan'");
      expect(notebook.currentPlan).toBeNull();
    });

    it("refuses an empty subtask list and a missing argument", async () => {
      const { call } = setup();
      expect(await call("create_plan", { ...THREE_STEPS, subtasks: [] })).toMatchObject({ isError: true, text: expect.stringContaining("at least one subtask") });
      const missing = await call("create_plan", { name: "x", description: "y", subtasks: [] });
      expect(missing).toMatchObject({ isError: true, text: expect.stringContaining("expected_outcome") });
    });

    it("archives the plan it replaces as abandoned instead of dropping it", async () => {
      const { call, notebook } = await withPlan();
      const first = notebook.currentPlan!;
      const result = await call("create_plan", { ...THREE_STEPS, name: "Second" });
      expect(result.text).toContain("The previous plan 'Ship the release' was archived as abandoned.");
      expect((await notebook.historicalPlans()).map((p) => [p.id, p.name, p.state])).toEqual([[first.id, "Ship the release", "abandoned"]]);
      expect(notebook.currentPlan?.name).toBe("Second");
    });
  });

  describe("update_subtask_state", () => {
    it("starts the first subtask and turns the plan in_progress with it", async () => {
      const { call, notebook, states } = await withPlan();
      const result = await call("update_subtask_state", { subtask_idx: 0, state: "in_progress" });
      expect(result).toEqual({ text: "Subtask 0 'Cut' is now 'in_progress'. The plan is now 'in_progress'.", isError: false });
      expect(states()).toEqual(["in_progress", "todo", "todo"]);
      expect(notebook.currentPlan?.state).toBe("in_progress");
    });

    it("refuses 'done' and points to finish_subtask", async () => {
      const { call, states } = await withPlan();
      const result = await call("update_subtask_state", { subtask_idx: 0, state: "done" });
      expect(result.isError).toBe(true);
      expect(result.text).toContain("'finish_subtask'");
      expect(states()).toEqual(["todo", "todo", "todo"]);
    });

    it("refuses starting a subtask while an earlier one is still todo", async () => {
      const { call, states } = await withPlan();
      const result = await call("update_subtask_state", { subtask_idx: 2, state: "in_progress" });
      expect(result.isError).toBe(true);
      expect(result.text).toContain("Subtask 0 'Cut' comes before subtask 2");
      expect(result.text).toContain("'abandoned'");
      expect(states()).toEqual(["todo", "todo", "todo"]);
    });

    it("refuses a second subtask in progress", async () => {
      const { call, states } = await withPlan();
      await call("update_subtask_state", { subtask_idx: 0, state: "abandoned" });
      await call("update_subtask_state", { subtask_idx: 1, state: "in_progress" });
      const result = await call("update_subtask_state", { subtask_idx: 0, state: "in_progress" });
      expect(result.isError).toBe(true);
      expect(result.text).toContain("Subtask 1 'Test' is in progress");
      expect(result.text).toContain("'finish_subtask'");
      expect(states()).toEqual(["abandoned", "in_progress", "todo"]);
    });

    it("lets a later subtask start once the earlier ones are abandoned", async () => {
      const { call, states } = await withPlan();
      await call("update_subtask_state", { subtask_idx: 0, state: "abandoned" });
      expect((await call("update_subtask_state", { subtask_idx: 1, state: "in_progress" })).isError).toBe(false);
      expect(states()).toEqual(["abandoned", "in_progress", "todo"]);
    });

    it("refuses changing a done subtask", async () => {
      const { call } = await withPlan();
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "v2.0.0" });
      const result = await call("update_subtask_state", { subtask_idx: 0, state: "todo" });
      expect(result).toMatchObject({ isError: true, text: expect.stringContaining("already done") });
      expect(result.text).toContain("'revise_current_plan'");
    });

    it("refuses negative, out-of-range and fractional indices with the valid range", async () => {
      const { call } = await withPlan();
      for (const idx of [-1, 3, 99]) {
        const result = await call("update_subtask_state", { subtask_idx: idx, state: "in_progress" });
        expect(result.isError).toBe(true);
        expect(result.text).toContain(`subtask_idx ${idx} is out of range`);
        expect(result.text).toContain("use 0 to 2");
      }
      expect((await call("update_subtask_state", { subtask_idx: 0.5, state: "todo" })).isError).toBe(true);
    });
  });

  describe("finish_subtask", () => {
    it("records the outcome and starts the next subtask", async () => {
      const { call, notebook, states } = await withPlan();
      await call("update_subtask_state", { subtask_idx: 0, state: "in_progress" });
      const result = await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "Tagged v2.0.0" });
      expect(result).toEqual({ text: "Subtask 0 'Cut' is done. Subtask 1 'Test' is now in progress.", isError: false });
      expect(states()).toEqual(["done", "in_progress", "todo"]);
      expect(notebook.currentPlan?.subtasks[0]).toMatchObject({ outcome: "Tagged v2.0.0", finishedAt: expect.any(String) });
    });

    it("skips abandoned subtasks when starting the next one", async () => {
      const { call, states } = await withPlan();
      await call("update_subtask_state", { subtask_idx: 1, state: "abandoned" });
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "tag" });
      expect(states()).toEqual(["done", "abandoned", "in_progress"]);
    });

    it("never reopens a done subtask: the next todo one starts", async () => {
      const { call, states } = await withPlan();
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "tag" });
      await call("update_subtask_state", { subtask_idx: 1, state: "todo" });
      await call("revise_current_plan", { subtask_idx: 0, action: "add", subtask: { name: "Prep", description: "d", expected_outcome: "e" } });
      expect(states()).toEqual(["todo", "done", "todo", "todo"]);
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "prepped" });
      expect(states()).toEqual(["done", "done", "in_progress", "todo"]);
    });

    it("says to call finish_plan when the last open subtask is finished", async () => {
      const { call, states } = await withPlan();
      await call("update_subtask_state", { subtask_idx: 0, state: "abandoned" });
      await call("update_subtask_state", { subtask_idx: 1, state: "abandoned" });
      const result = await call("finish_subtask", { subtask_idx: 2, subtask_outcome: "published" });
      expect(states()).toEqual(["abandoned", "abandoned", "done"]);
      expect(result.text).toBe("Subtask 2 'Publish' is done. Every subtask is done or abandoned: call 'finish_plan' with the plan's outcome, then answer the user.");
    });

    it("refuses finishing while an earlier subtask is open, or finishing twice, or an abandoned one", async () => {
      const { call, states } = await withPlan();
      const early = await call("finish_subtask", { subtask_idx: 1, subtask_outcome: "x" });
      expect(early).toMatchObject({ isError: true, text: expect.stringContaining("Subtask 0 'Cut' comes before subtask 1") });
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "tag" });
      const twice = await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "again" });
      expect(twice).toMatchObject({ isError: true, text: expect.stringContaining("already done") });
      await call("update_subtask_state", { subtask_idx: 2, state: "abandoned" });
      const abandoned = await call("finish_subtask", { subtask_idx: 2, subtask_outcome: "x" });
      expect(abandoned).toMatchObject({ isError: true, text: expect.stringContaining("'update_subtask_state'") });
      const outOfRange = await call("finish_subtask", { subtask_idx: -2, subtask_outcome: "x" });
      expect(outOfRange).toMatchObject({ isError: true, text: expect.stringContaining("use 0 to 2") });
      expect(states()).toEqual(["done", "in_progress", "abandoned"]);
    });
  });

  describe("revise_current_plan", () => {
    it("adds before an index, and appends at the number of subtasks", async () => {
      const { call, notebook } = await withPlan();
      const add = (idx: number, name: string) =>
        call("revise_current_plan", { subtask_idx: idx, action: "add", subtask: { name, description: "d", expected_outcome: "e" } });
      expect((await add(0, "First")).text).toContain("Subtask 0 is added. The plan now reads:\n# Ship the release");
      expect((await add(4, "Last")).isError).toBe(false);
      expect(notebook.currentPlan?.subtasks.map((s) => s.name)).toEqual(["First", "Cut", "Test", "Publish", "Last"]);
      const beyond = await add(6, "Nowhere");
      expect(beyond).toMatchObject({ isError: true, text: expect.stringContaining("use 0 to 5 (5 appends after the last subtask)") });
    });

    it("accepts the subtask argument as a JSON string", async () => {
      const { call, notebook } = await withPlan();
      const subtask = JSON.stringify({ name: "Announce", description: "Post it.", expected_outcome: "A post." });
      expect((await call("revise_current_plan", { subtask_idx: 3, action: "add", subtask })).isError).toBe(false);
      expect(notebook.currentPlan?.subtasks[3]?.name).toBe("Announce");
    });

    it("refuses an add beyond maxSubtasks and an add without all fields", async () => {
      const { call, notebook } = await withPlan({ maxSubtasks: 3 });
      const full = await call("revise_current_plan", { subtask_idx: 3, action: "add", subtask: { name: "n", description: "d", expected_outcome: "e" } });
      expect(full).toMatchObject({ isError: true, text: expect.stringContaining("already has 3 subtasks") });
      const partial = await call("revise_current_plan", { subtask_idx: 0, action: "add", subtask: { name: "n" } });
      expect(partial).toMatchObject({ isError: true, text: expect.stringContaining("description, expected_outcome") });
      expect(notebook.currentPlan?.subtasks).toHaveLength(3);
    });

    it("revises a subtask's text and keeps its state and outcome", async () => {
      const { call, notebook } = await withPlan();
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "Tagged v2.0.0" });
      const result = await call("revise_current_plan", { subtask_idx: 0, action: "revise", subtask: { description: "Tag and sign." } });
      expect(result.isError).toBe(false);
      expect(notebook.currentPlan?.subtasks[0]).toMatchObject({ name: "Cut", description: "Tag and sign.", state: "done", outcome: "Tagged v2.0.0" });
      await call("revise_current_plan", { subtask_idx: 1, action: "revise", subtask: { name: "Test everything", description: "d", expected_outcome: "e" } });
      expect(notebook.currentPlan?.subtasks[1]).toMatchObject({ name: "Test everything", state: "in_progress" });
      const empty = await call("revise_current_plan", { subtask_idx: 1, action: "revise" });
      expect(empty).toMatchObject({ isError: true, text: expect.stringContaining("give the fields to change") });
    });

    it("deletes a subtask but never the last one", async () => {
      const { call, notebook } = await withPlan();
      await call("revise_current_plan", { subtask_idx: 1, action: "delete" });
      await call("revise_current_plan", { subtask_idx: 0, action: "delete" });
      expect(notebook.currentPlan?.subtasks.map((s) => s.name)).toEqual(["Publish"]);
      const last = await call("revise_current_plan", { subtask_idx: 0, action: "delete" });
      expect(last).toMatchObject({ isError: true, text: expect.stringContaining("'finish_plan' with state='abandoned'") });
      const outOfRange = await call("revise_current_plan", { subtask_idx: 1, action: "delete" });
      expect(outOfRange).toMatchObject({ isError: true, text: expect.stringContaining("use 0 to 0") });
      const badAction = await call("revise_current_plan", { subtask_idx: 0, action: "replace" });
      expect(badAction).toMatchObject({ isError: true, text: expect.stringContaining("action") });
    });
  });

  describe("finish_plan", () => {
    it("refuses 'done' while subtasks are open, naming them", async () => {
      const { call, notebook } = await withPlan();
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "tag" });
      const result = await call("finish_plan", { state: "done", outcome: "shipped" });
      expect(result.isError).toBe(true);
      expect(result.text).toContain("subtask 1 'Test', 2 'Publish' are not finished");
      expect(result.text).toContain("state='abandoned'");
      expect(notebook.currentPlan).not.toBeNull();
    });

    it("finishes as done, archives the plan and leaves no current plan", async () => {
      const { call, notebook } = await withPlan();
      for (const idx of [0, 1, 2]) await call("finish_subtask", { subtask_idx: idx, subtask_outcome: `out ${idx}` });
      const result = await call("finish_plan", { state: "done", outcome: "v2 is out" });
      expect(result).toEqual({ text: "Plan 'Ship the release' is finished as 'done' and archived. Now tell the user the outcome.", isError: false });
      expect(notebook.currentPlan).toBeNull();
      expect((await notebook.historicalPlans())[0]).toMatchObject({ state: "done", outcome: "v2 is out", finishedAt: expect.any(String) });
    });

    it("abandons at any time and refuses other states", async () => {
      const { call, notebook } = await withPlan();
      expect((await call("finish_plan", { state: "paused", outcome: "x" })).isError).toBe(true);
      expect((await call("finish_plan", { state: "abandoned", outcome: "user changed their mind" })).isError).toBe(false);
      expect((await notebook.historicalPlans())[0]?.state).toBe("abandoned");
    });
  });

  describe("view_subtasks, view_historical_plans, recover_historical_plan", () => {
    it("shows the detailed subtasks asked for, and refuses a bad index with the range", async () => {
      const { call } = await withPlan();
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "Tagged v2.0.0" });
      const result = await call("view_subtasks", { subtask_idx: [0, 2] });
      expect(result.isError).toBe(false);
      expect(result.text).toMatch(/^Subtask 0:\n- \[x\] Cut\n\t- Created At: .*\n\t- Description: Tag the release\.\n/);
      expect(result.text).toContain("\t- Outcome: Tagged v2.0.0");
      expect(result.text).toContain("Subtask 2:\n- [ ] Publish");
      expect(await call("view_subtasks", { subtask_idx: [5] })).toMatchObject({ isError: true, text: expect.stringContaining("use 0 to 2") });
      expect(await call("view_subtasks", { subtask_idx: [] })).toMatchObject({ isError: true, text: expect.stringContaining("subtask_idx") });
    });

    it("lists archived plans with id, name, creation time, description and state", async () => {
      const { call, notebook } = await withPlan({ clock: () => new Date("2026-01-02T03:04:05.006Z") });
      const id = notebook.currentPlan!.id;
      await call("finish_plan", { state: "abandoned", outcome: "no" });
      const result = await call("view_historical_plans");
      expect(result.text).toBe(
        `- id: ${id} | name: Ship the release | created at: 2026-01-02 03:04:05.006 | state: abandoned\n` +
          "  description: Cut, test and publish version 2.",
      );
    });

    it("recovers an archived plan, archiving the current one as abandoned", async () => {
      const { call, notebook, states } = await withPlan();
      const first = notebook.currentPlan!.id;
      await call("finish_subtask", { subtask_idx: 0, subtask_outcome: "tag" });
      await call("create_plan", { ...THREE_STEPS, name: "Other" });
      const second = notebook.currentPlan!.id;
      const result = await call("recover_historical_plan", { plan_id: first });
      expect(result).toEqual({ text: "Plan 'Ship the release' is the current plan again. The plan 'Other' was archived.", isError: false });
      expect(notebook.currentPlan).toMatchObject({ id: first, state: "in_progress", outcome: null, finishedAt: null });
      expect(states()).toEqual(["done", "in_progress", "todo"]);
      expect((await notebook.historicalPlans()).map((p) => [p.id, p.state])).toEqual([[second, "abandoned"]]);
    });

    it("refuses an unknown id and the current plan's id", async () => {
      const { call, notebook } = await withPlan();
      expect(await call("recover_historical_plan", { plan_id: "nope" })).toMatchObject({
        isError: true,
        text: expect.stringContaining("'view_historical_plans'"),
      });
      expect(await call("recover_historical_plan", { plan_id: notebook.currentPlan!.id })).toMatchObject({
        isError: true,
        text: expect.stringContaining("already the current plan"),
      });
    });
  });
});
