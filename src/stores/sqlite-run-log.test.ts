import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../core/events.js";
import { SqliteRunLog } from "./sqlite-run-log.js";

const event = (type: "run-start" | "run-end", time: number): AgentEvent =>
  type === "run-start"
    ? { type, agent: "a", time, input: "task" }
    : { type, agent: "a", time, stopReason: "final", steps: 1, text: "ok", usage: { inputTokens: 1, outputTokens: 1 } };

describe("SqliteRunLog", () => {
  it("keeps runs, numbered events and checkpoints across reopenings of the file", () => {
    const file = join(mkdtempSync(join(tmpdir(), "stepwise-runs-")), "stepwise.db");
    const log = new SqliteRunLog(file);
    log.createRun({ id: "r1", task: "write a report", strategy: "notebook", model: "scripted:demo" });
    log.createRun({ id: "r2", task: "second", strategy: "todos", model: "scripted:demo" });
    expect(log.appendEvent("r1", event("run-start", 1))).toBe(1);
    expect(log.appendEvent("r1", event("run-end", 2))).toBe(2);
    log.saveCheckpoint("r1", { version: 1, memory: [] });
    log.saveCheckpoint("r1", { version: 1, memory: [{ role: "user", content: "x" }] });
    log.updateRun("r1", { status: "finished", answer: "done" });
    log.saveSettings("r1", { workspace: "/tmp/w", approval: "plan" });
    log.close();

    const reopened = new SqliteRunLog(file);
    expect(reopened.listRuns().map((r) => r.id)).toEqual(["r2", "r1"]);
    expect(reopened.getRun("r1")).toMatchObject({ status: "finished", answer: "done", task: "write a report" });
    expect(reopened.events("r1").map((e) => [e.seq, e.event.type])).toEqual([
      [1, "run-start"],
      [2, "run-end"],
    ]);
    expect(reopened.events("r1", 1).map((e) => e.seq)).toEqual([2]);
    expect(reopened.loadCheckpoint("r1")).toEqual({ version: 1, memory: [{ role: "user", content: "x" }] });
    expect(reopened.loadCheckpoint("r2")).toBeUndefined();
    expect(reopened.loadSettings("r1")).toEqual({ workspace: "/tmp/w", approval: "plan" });
    expect(reopened.loadSettings("r2")).toBeUndefined();
    expect(() => reopened.updateRun("nope", { status: "failed" })).toThrow(/No run with id "nope"/);
    reopened.close();
  });
});
