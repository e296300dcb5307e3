import { describe, expect, it } from "vitest";
import { countTokens } from "../../../bench/tokens.js";
import type { Tool } from "../../core/tool.js";
import { TaskBoard } from "./task-board.js";
import type { TaskImport } from "./task.js";

async function boardOf(tasks: TaskImport[]) {
  const board = new TaskBoard();
  await board.import(tasks);
  const list = board.tools().find((tool) => tool.name === "TaskList") as Tool;
  return (args: unknown) => list.invoke(args);
}

/** n tasks: the first 60% completed, a few in progress, the rest pending, every fifth pending one blocked by the one before. */
function mixedBoard(n: number): TaskImport[] {
  return Array.from({ length: n }, (_, i) => {
    const id = String(i + 1);
    const done = i < n * 0.6;
    const working = !done && i % 7 === 0;
    return {
      id,
      subject: `Step ${id} of the migration, with a subject of ordinary length`,
      state: done ? "completed" : working ? "in_progress" : "pending",
      owner: working ? `worker-${i % 3}` : null,
      blockedBy: !done && !working && i % 5 === 0 && i > 0 ? [String(i)] : [],
    };
  });
}

describe("TaskList on a large board", () => {
  it("fits its default view in about 2,000 tokens at any size, open work first, saying how many were left out", async () => {
    for (const n of [100, 2_000, 20_000]) {
      const list = await boardOf(mixedBoard(n));
      const { text } = await list({});
      expect(countTokens(text)).toBeLessThan(2_200);
      const lines = text.split("\n");
      expect(lines[0]).toMatch(new RegExp(`^${n} tasks: \\d+ in progress, \\d+ pending \\(\\d+ ready to start\\), ${n * 0.6} completed\\.$`));
      expect(lines.at(-1)).toMatch(/^… \d+ more tasks not shown \(open work is listed first\): narrow with status, owner or ready, or raise limit\.$/);
      // Open work crowds out completed tasks: all of it is shown before any completed task.
      const open = lines.filter((line) => /\[(pending|in_progress)\]/.test(line)).length;
      expect(open).toBe(Math.min(n * 0.4, 50));
      if (open === 50) expect(lines.filter((line) => line.includes("[completed]"))).toEqual([]);
    }
  });

  it("filters by status, owner and readiness, with a limit, and says when nothing matches", async () => {
    const list = await boardOf(mixedBoard(100));
    const working = (await list({ status: "in_progress" })).text.split("\n").slice(1);
    expect(working.length).toBeGreaterThan(0);
    expect(working.every((line) => line.includes("[in_progress]"))).toBe(true);
    const mine = (await list({ owner: "worker-1" })).text.split("\n").slice(1);
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((line) => line.includes("(owner: worker-1)"))).toBe(true);
    const ready = (await list({ ready: true, limit: 3 })).text.split("\n");
    expect(ready.slice(1, 4).every((line) => line.includes("[pending]") && !line.includes("blocked by") && !line.includes("owner"))).toBe(true);
    expect(ready[4]).toMatch(/^… \d+ more matching tasks not shown/);
    expect((await list({ owner: "nobody" })).text).toMatch(/No task matches these filters\.$/);
    expect(await list({ limit: 0 })).toMatchObject({ isError: true, text: expect.stringContaining("limit") });
    expect(await list({ status: "done" })).toMatchObject({ isError: true, text: expect.stringContaining("status") });
  });

  it("bounds a long subject in the list and points at TaskGet for the rest", async () => {
    const list = await boardOf([{ id: "1", subject: "x".repeat(10_000) }]);
    const { text } = await list({});
    expect(text.length).toBeLessThan(400);
    expect(text).toContain("(10000 characters; TaskGet shows all)");
  });
});
