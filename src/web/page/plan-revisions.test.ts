import { describe, expect, it } from "vitest";
import type { Checklist } from "../../runs/checklist.js";
import type { AgentEvent } from "../../core/events.js";
import type { RunRecord } from "../../stores/run-store.js";
import { applyRunEvent, checklistChanges, emptyDetails } from "./run-view.js";

const board = (...items: [string, string, Checklist["items"][number]["status"], string[]?][]): Checklist => ({
  kind: "tasks",
  title: "Task board",
  items: items.map(([id, label, status, blockedBy = []]) => ({ id, label, status, blockedBy })),
});

describe("checklistChanges", () => {
  it("names each added, removed, renamed, moved-on and re-linked item", () => {
    const before = board(["1", "Survey", "in_progress"], ["2", "Read", "todo"], ["3", "Draft", "todo"]);
    const after = board(["1", "Survey", "done"], ["2", "Read files", "todo", ["1"]], ["4", "Write", "todo"]);
    expect(checklistChanges(before, after)).toEqual([
      '1 "Survey": in progress → done',
      'renamed 2 "Read" to "Read files"',
      '2 "Read files" now waits for 1',
      'added 4 "Write"',
      'removed 3 "Draft"',
    ]);
  });

  it("calls a first or replaced plan new, and an unchanged one unchanged", () => {
    const plan = board(["1", 'read_file({"path":"a.md"})', "todo"]);
    expect(checklistChanges(null, plan)).toEqual(['new task board "Task board" with 1 item(s)']);
    expect(checklistChanges(plan, plan)).toEqual([]);
    expect(checklistChanges(plan, board(["2", 'read_file({"path":"b.md"})', "todo"]))).toEqual(['added 2 "read_file: b.md"', 'removed 1 "read_file: a.md"']);
  });
});

describe("a plan revision", () => {
  it("names the call that had started last: the tool that changed the plan, or a workflow's model step", () => {
    const details = emptyDetails({ id: "r1", task: "t", strategy: "rewoo", model: "m", status: "running", createdAt: "", updatedAt: "" } as RunRecord);
    const stamp = { agent: "rewoo", time: 1, runId: "r1" };
    const events: AgentEvent[] = [
      { ...stamp, type: "tool-start", step: 1, call: { id: "c1", name: "search", arguments: "{}" } },
      { ...stamp, type: "checklist-updated", checklist: board(["1", "Search", "done"]) },
      { ...stamp, type: "model-start", step: 2, messageCount: 2, toolCount: 0 },
      { ...stamp, type: "checklist-updated", checklist: board(["1", "Search", "done"], ["2", "Summarise", "in_progress"]) },
    ];
    events.forEach((event, i) => applyRunEvent(details, { seq: i + 1, event }));
    expect(details.revisions.map((revision) => [revision.cause, revision.changes])).toEqual([
      ["search (c1)", ['new task board "Task board" with 1 item(s)']],
      ["model call #1", ['added 2 "Summarise"']],
    ]);
  });
});
