import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { TaskBoard } from "./task-board.js";
import { TaskReminder } from "./task-reminder.js";
import { taskReminderNote } from "./task-reminder-note.js";

describe("TaskReminder", () => {
  it("ends each request with a one-line note counting open tasks, never stored in memory", async () => {
    const board = new TaskBoard();
    await board.import([
      { id: "1", subject: "a", state: "in_progress" },
      { id: "2", subject: "b" },
      { id: "3", subject: "c" },
      { id: "4", subject: "d", state: "completed" },
    ]);
    const model = scriptedModel([{ toolCalls: [{ name: "TaskUpdate", arguments: { task_id: "1", status: "completed" } }] }, "done"]);
    const agent = new Agent({ model, plugins: [board, new TaskReminder(board)] });
    await agent.run("go");

    expect(model.requests[0]?.messages.at(-1)).toEqual({ role: "user", content: taskReminderNote({ pending: 2, inProgress: 1 }) });
    expect(model.requests[1]?.messages.at(-1)?.content).toContain("0 tasks in progress, 2 pending");
    expect(agent.memory.some((message) => message.content.includes("system-reminder"))).toBe(false);
  });

  it("stays silent when nothing is pending or in progress", async () => {
    const board = new TaskBoard();
    await board.import([{ id: "1", subject: "a", state: "completed" }]);
    const model = scriptedModel(["ok"]);
    await new Agent({ model, plugins: [board, new TaskReminder(board)] }).run("hi");
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: "hi" }]);
  });

  it("is one line that names the counts and the tools to use", () => {
    const note = taskReminderNote({ pending: 3, inProgress: 1 });
    expect(note.split("\n")).toHaveLength(1);
    expect(note).toContain("1 task in progress, 3 pending");
    expect(note).toMatch(/TaskUpdate/);
    expect(note).toMatch(/TaskList/);
  });
});
