import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { SqliteTaskStore } from "../../stores/sqlite-task-store.js";
import { TaskBoard } from "./task-board.js";

const create = (subject: string) => ({ name: "TaskCreate", arguments: { subject, description: `${subject}.` } });
const update = (task_id: string, status: string) => ({ toolCalls: [{ name: "TaskUpdate", arguments: { task_id, status } }] });

it("a second run on a board that already holds finished work gets new ids in call order and cannot reopen the finished tasks", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-second-run-"));
  const path = join(dir, "board.db");
  const run = async (turns: Parameters<typeof scriptedModel>[0]) => {
    const board = new TaskBoard({ store: new SqliteTaskStore({ path, boardId: "shared" }), agentName: "tasks" });
    const agent = new Agent({ name: "tasks", model: scriptedModel(turns), plugins: [board] });
    await agent.run("Write the report");
    const results = agent.memory.filter((m) => m.role === "tool");
    const counts = await board.counts();
    await agent.close();
    return { results, counts };
  };
  try {
    const first = await run([
      { toolCalls: [create("Survey"), create("Read"), create("Write")] },
      ...["1", "2", "3"].flatMap((id) => [update(id, "in_progress"), update(id, "completed")]),
      "done",
    ]);
    expect(first.counts).toEqual({ pending: 0, in_progress: 0, completed: 3 });

    // The second run plans the same three steps, then (like a script written for a fresh board)
    // tries to start task 1 again.
    const second = await run([{ toolCalls: [create("Survey"), create("Read"), create("Write")] }, update("1", "in_progress"), update("1", "pending"), "done"]);
    expect(second.results.slice(0, 3).map((m) => m.content)).toEqual(["Created task #4: Survey", "Created task #5: Read", "Created task #6: Write"]);
    expect(second.results[3]?.content).toMatch(/Task #1 \(Survey\) is already completed, and a completed task is not reopened/);
    expect(second.results[4]?.content).toMatch(/already completed/);
    expect(second.counts).toEqual({ pending: 3, in_progress: 0, completed: 3 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
