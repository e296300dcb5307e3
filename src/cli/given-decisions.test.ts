import { describe, expect, it } from "vitest";
import type { PendingCall } from "../core/approval.js";
import { approveEverything, givenDecisions } from "./given-decisions.js";

const write: PendingCall = { id: "w", name: "write_file", arguments: '{"path":"a"}', kind: "approval" };
const question: PendingCall = { id: "q", name: "ask_user", arguments: '{"question":"Which?"}', kind: "question" };

describe("givenDecisions", () => {
  it("answers calls, questions and plans in order, as the file says", async () => {
    const problems: string[] = [];
    const approver = givenDecisions(
      [
        { action: "edit", arguments: { path: "b" } },
        { tool: "ask_user", action: "answer", text: "the second" },
        { tool: "plan", action: "edit", steps: ["Read", "Write"] },
        { tool: "plan", action: "reject", reason: "shorter" },
        { tool: "ask_user", action: "reject", reason: "rather not" },
      ],
      (text) => problems.push(text),
    );
    expect(await approver.decideCall(write)).toEqual({ action: "edit", arguments: { path: "b" } });
    expect(await approver.decideCall(question)).toEqual({ action: "answer", text: "the second" });
    expect(await approver.decidePlan({ task: "t", steps: ["x"] })).toEqual({ action: "edit", steps: ["Read", "Write"] });
    expect(await approver.decidePlan({ task: "t", steps: ["x"] })).toEqual({ action: "reject", feedback: "shorter" });
    expect(await approver.decideCall(question)).toEqual({ action: "reject", reason: "rather not" });
    expect(await approver.decideCall(write)).toBeNull();
    expect(problems).toEqual(["the --decisions file has no decision left for write_file; the run stays paused"]);
  });

  it("never guesses: a decision that does not fit leaves the run paused and says why", async () => {
    const problems: string[] = [];
    const approver = givenDecisions([{ action: "approve" }, { action: "edit" }], (text) => problems.push(text));
    expect(await approver.decideCall(question)).toBeNull();
    expect(await approver.decideCall(write)).toBeNull();
    expect(problems).toEqual([
      'decision 1 of --decisions (approve) does not fit ask_user: a question needs {"action":"answer","text":"…"} or {"action":"reject"}; the run stays paused',
      'decision 2 of --decisions (edit) does not fit write_file: an edit needs "arguments"; the run stays paused',
    ]);
  });

  it("--approve-all approves calls and plans but cannot answer a question", async () => {
    const problems: string[] = [];
    const approver = approveEverything((text) => problems.push(text));
    expect(await approver.decideCall(write)).toEqual({ action: "approve" });
    expect(await approver.decidePlan({ task: "t", steps: ["x"] })).toEqual({ action: "approve" });
    expect(await approver.decideCall(question)).toBeNull();
    expect(problems).toHaveLength(1);
  });
});
