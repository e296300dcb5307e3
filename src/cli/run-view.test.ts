import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../core/events.js";
import type { Checklist } from "../runs/checklist.js";
import { liveChecklistView, plainLogView } from "./run-view.js";

function sink() {
  const chunks: string[] = [];
  return { chunks, stream: { write: (text: string) => chunks.push(text) } as unknown as NodeJS.WritableStream };
}

const checklist = (statuses: Checklist["items"][number]["status"][]): AgentEvent => ({
  type: "checklist-updated",
  agent: "a",
  time: 0,
  checklist: {
    kind: "plan",
    title: "Report",
    items: statuses.map((status, i) => ({ id: String(i), label: `step ${i}`, status, blockedBy: i > 0 ? [String(i - 1)] : [] })),
  },
});

const toolEnd: AgentEvent = {
  type: "tool-end",
  agent: "a",
  time: 0,
  step: 1,
  call: { id: "c", name: "read_file", arguments: '{"path":"a.md"}' },
  result: { text: "1\thello", isError: false },
  refused: false,
  durationMs: 1,
};

describe("live checklist (terminal)", () => {
  it("redraws the checklist in place and keeps tool lines above it", () => {
    const { chunks, stream } = sink();
    const view = liveChecklistView(stream);
    view.event(checklist(["in_progress", "todo"]));
    view.event(toolEnd);
    view.event(checklist(["done", "in_progress"]));
    view.finish(["", "All done."]);
    expect(chunks).toEqual([
      "Report (0/2 done)\n  [>] 0. step 0\n  [ ] 1. step 1  (after 0)\n",
      "\x1b[3A\x1b[J",
      '· read_file {"path":"a.md"} → 1 hello\n',
      "Report (0/2 done)\n  [>] 0. step 0\n  [ ] 1. step 1  (after 0)\n",
      "\x1b[3A\x1b[J",
      "Report (1/2 done)\n  [x] 0. step 0\n  [>] 1. step 1  (after 0)\n",
      "\x1b[3A\x1b[J",
      "Report (1/2 done)\n  [x] 0. step 0\n  [>] 1. step 1  (after 0)\n",
      "\n",
      "All done.\n",
    ]);
  });

  it("cuts lines to the terminal's width", () => {
    const { chunks, stream } = sink();
    const view = liveChecklistView(Object.assign(stream, { columns: 20 }));
    view.event(checklist(["in_progress"]));
    expect(chunks[0]).toBe("Report (0/1 done)\n  [>] 0. step 0\n");
    view.event(toolEnd);
    expect(chunks[2]).toBe("· read_file {\"path…\n");
  });
});

describe("plain log (pipes)", () => {
  it("writes one line per tool call and per change of the plan, never escape codes", () => {
    const { chunks, stream } = sink();
    const view = plainLogView(stream, stream);
    view.event(checklist(["in_progress", "todo"]));
    view.event(checklist(["in_progress", "todo"]));
    view.event(toolEnd);
    view.event(checklist(["done", "in_progress"]));
    expect(chunks.join("")).toBe(
      'plan: Report 0/2 done; now: step 0\n· read_file {"path":"a.md"} → 1 hello\nplan: Report 1/2 done; now: step 1\n',
    );
  });

  it("shows what each new hint told the model: the call it recommends, or its first line", () => {
    const { chunks, stream } = sink();
    const view = plainLogView(stream, stream);
    const hint = (text: string, next?: { tool: string; args: Record<string, string | number>; modelWrites: Record<string, string> }): AgentEvent => ({
      type: "hint-added",
      agent: "a",
      time: 0,
      plugin: "plan_notebook",
      step: 1,
      text,
      ...(next ? { next } : {}),
    });
    view.event(hint("<system-hint>There is no plan yet. If the request is complex,\ncall 'create_plan'.</system-hint>"));
    const finish = { tool: "finish_subtask", args: { subtask_idx: 0 }, modelWrites: { subtask_outcome: "the outcome" } };
    view.event(hint("<system-hint>The current plan: …</system-hint>", finish));
    view.event(hint("<system-hint>The current plan: …</system-hint>", finish));
    expect(chunks.join("")).toBe(
      "hint: There is no plan yet. If the request is complex,\nhint: next finish_subtask(subtask_idx=0, subtask_outcome=…)\n",
    );
  });

  it("never repeats a count line when parallel steps start one by one, and says which started", () => {
    const { chunks, stream } = sink();
    const view = plainLogView(stream, stream);
    view.event(checklist(["done", "todo", "todo", "todo"]));
    view.event(checklist(["done", "in_progress", "todo", "todo"]));
    view.event(checklist(["done", "in_progress", "in_progress", "todo"]));
    view.event(checklist(["done", "done", "in_progress", "in_progress"]));
    view.event(checklist(["done", "done", "in_progress", "in_progress"]));
    expect(chunks.join("")).toBe("plan: Report 1/4 done\nnow: step 1\nnow: step 2\nplan: Report 2/4 done; now: step 3\n");
  });

  it("gives a fold's request size before and after", () => {
    const { chunks, stream } = sink();
    plainLogView(stream, stream).event({
      type: "context-folded",
      agent: "a",
      time: 0,
      units: [{ unit: { kind: "subtask", id: "1", title: "x" }, outcome: "ok", messages: 4, tokensSaved: 2100 }],
      stubbed: [],
      digested: [],
      tokensBefore: 3400,
      tokensAfter: 1300,
      tokensSaved: 2100,
      prefixBreaks: 1,
    });
    expect(chunks.join("")).toBe("context folded: 1 unit(s); request ~3,400 → ~1,300 tokens\n");
  });
});

describe("live checklist notices", () => {
  it("erases the checklist before a notice and draws it once below, leaving no stale copy (Ctrl-C)", () => {
    const out = sink();
    const err = sink();
    const view = liveChecklistView(out.stream, err.stream);
    view.event(checklist(["in_progress", "todo"]));
    view.notice("stopping…\n");
    expect(out.chunks).toEqual([
      "Report (0/2 done)\n  [>] 0. step 0\n  [ ] 1. step 1  (after 0)\n",
      "\x1b[3A\x1b[J",
      "Report (0/2 done)\n  [>] 0. step 0\n  [ ] 1. step 1  (after 0)\n",
    ]);
    expect(err.chunks).toEqual(["stopping…\n"]);
  });

  it("cuts a checklist taller than the terminal, so the redraw can climb back over it", () => {
    const { chunks, stream } = sink();
    const view = liveChecklistView(Object.assign(stream, { rows: 5 }));
    view.event(checklist(["todo", "todo", "todo", "todo", "todo", "todo"]));
    expect(chunks[0]).toBe("Report (0/6 done)\n  [ ] 0. step 0\n  … 5 more\n");
    view.event(toolEnd);
    expect(chunks[1]).toBe("\x1b[3A\x1b[J");
  });
});

describe("the answer as it is written", () => {
  const runStart: AgentEvent = { type: "run-start", agent: "a", time: 0, runId: "r1", input: "Weather?" };
  const delta = (text: string, runId = "r1"): AgentEvent => ({ type: "text-delta", agent: "a", time: 0, runId, step: 1, text });
  const modelEnd = (content: string): AgentEvent => ({
    type: "model-end",
    agent: "a",
    time: 0,
    runId: "r1",
    step: 1,
    message: { role: "assistant", content },
    durationMs: 5,
  });

  it("plain log: prints the agent's text as it comes, not a sub-agent's or a workflow planner's, and does not repeat the answer", () => {
    const { chunks, stream } = sink();
    const view = plainLogView(stream, stream);
    view.event({ ...runStart, runId: "sub", parent: { runId: "r1", agent: "a" } });
    view.event(runStart);
    view.event(delta("Sunny "));
    view.event(delta("(helper text)", "sub"));
    view.event(delta("(a plan)", "workflow-run"));
    view.event(delta("in Oslo."));
    view.event(modelEnd("Sunny in Oslo."));
    view.finish(["", "Sunny in Oslo."]);
    expect(chunks.join("")).toBe("Sunny in Oslo.\n\n");
  });

  it("plain log: a tool line during the text starts on its own line; planning and folding say what they did", () => {
    const { chunks, stream } = sink();
    const view = plainLogView(stream, stream);
    view.event({ type: "workflow-planning-started", agent: "llm-compiler", time: 0, workflow: "llm-compiler", round: 1 });
    view.event(runStart);
    view.event(delta("Reading"));
    view.event(toolEnd);
    view.event({
      type: "context-folded",
      agent: "a",
      time: 0,
      units: [],
      digested: [],
      stubbed: [],
      tokensBefore: 9000,
      tokensAfter: 4000,
      tokensSaved: 5000,
      prefixBreaks: 1,
    });
    expect(chunks.join("")).toBe(
      'planning (round 1)…\nReading\n· read_file {"path":"a.md"} → 1 hello\ncontext folded: 0 unit(s); request ~9,000 → ~4,000 tokens\n',
    );
  });

  it("live view: the checklist steps aside while text is written and comes back when the call ends", () => {
    const { chunks, stream } = sink();
    const view = liveChecklistView(stream);
    view.event(checklist(["in_progress"]));
    view.event(runStart);
    view.event(delta("Work"));
    view.event(delta("ing."));
    view.event(modelEnd("Working."));
    expect(chunks).toEqual([
      "Report (0/1 done)\n  [>] 0. step 0\n",
      "\x1b[2A\x1b[J",
      "Work",
      "ing.",
      "\n",
      "Report (0/1 done)\n  [>] 0. step 0\n",
    ]);
  });
});
