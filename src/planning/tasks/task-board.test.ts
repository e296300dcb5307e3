import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import type { Tool } from "../../core/tool.js";
import { scriptedModel } from "../../models/scripted.js";
import { SqliteTaskStore } from "../../stores/sqlite-task-store.js";
import { TaskBoard } from "./task-board.js";

function boardWithTools(opts: ConstructorParameters<typeof TaskBoard>[0] = {}) {
  const board = new TaskBoard(opts);
  const tools = new Map(board.tools().map((tool) => [tool.name, tool]));
  const call = (name: string, args: unknown) => (tools.get(name) as Tool).invoke(args);
  return { board, call };
}

async function threeTasks() {
  const fixture = boardWithTools();
  for (const subject of ["Read the spec", "Write the code", "Run the tests"]) {
    await fixture.call("TaskCreate", { subject, description: `${subject}, fully.` });
  }
  return fixture;
}

describe("TaskBoard tools", () => {
  it("offers TaskCreate, TaskGet, TaskList and TaskUpdate, only the reading ones marked read-only", () => {
    const tools = new TaskBoard().tools();
    expect(tools.map((tool) => [tool.name, tool.readOnly])).toEqual([
      ["TaskCreate", false],
      ["TaskGet", true],
      ["TaskList", true],
      ["TaskUpdate", false],
    ]);
  });

  it("creates tasks and lists them one compact line each", async () => {
    const { call } = await threeTasks();
    expect(await call("TaskCreate", { subject: "Ship", description: "Tag a release", metadata: { priority: "high" } })).toEqual({
      text: "Created task #4: Ship",
      isError: false,
    });
    expect((await call("TaskList", {})).text).toBe(
      [
        "4 tasks: 0 in progress, 4 pending (4 ready to start), 0 completed.",
        "#1 [pending] Read the spec",
        "#2 [pending] Write the code",
        "#3 [pending] Run the tests",
        "#4 [pending] Ship",
      ].join("\n"),
    );
  });

  it("says the board is empty and how to start", async () => {
    const { call } = boardWithTools();
    expect((await call("TaskList", {})).text).toMatch(/empty.*TaskCreate/);
  });

  it("adds edges in both directions, and TaskList shows open blockers and completed ones as done", async () => {
    const { board, call } = await threeTasks();
    expect((await call("TaskUpdate", { task_id: "2", add_blocked_by: ["1"] })).isError).toBe(false);
    expect((await call("TaskUpdate", { task_id: "2", add_blocks: ["3"] })).isError).toBe(false);
    expect((await board.list()).map((task) => [task.id, task.blocks, task.blockedBy])).toEqual([
      ["1", ["2"], []],
      ["2", ["3"], ["1"]],
      ["3", [], ["2"]],
    ]);
    expect((await call("TaskList", {})).text).toContain("#2 [pending] Write the code — blocked by #1");
    const done = await call("TaskUpdate", { task_id: "1", status: "completed" });
    expect(done.text).toContain("Now free to start: #2.");
    expect((await call("TaskList", {})).text).toContain("#2 [pending] Write the code — #1 done");
    expect((await call("TaskList", {})).text).toContain("#3 [pending] Run the tests — blocked by #2");
  });

  it("lets a blocked task start (dependencies are advisory) but says which blockers are open", async () => {
    const { call } = await threeTasks();
    await call("TaskUpdate", { task_id: "3", add_blocked_by: ["1", "2"] });
    await call("TaskUpdate", { task_id: "1", status: "completed" });
    const started = await call("TaskUpdate", { task_id: "3", status: "in_progress" });
    expect(started.isError).toBe(false);
    expect(started.text).toContain("#3 [in_progress]");
    expect(started.text).toMatch(/still blocked by #2\b/);
    expect(started.text).not.toMatch(/blocked by #1/);
  });

  it("shows everything about one task with TaskGet, blockers with their status", async () => {
    const { call } = await threeTasks();
    await call("TaskUpdate", { task_id: "2", add_blocked_by: ["1"], owner: "ann", metadata: { source: "seed" } });
    const text = (await call("TaskGet", { task_id: "2" })).text;
    expect(text).toContain("Task #2: Write the code");
    expect(text).toContain("Status: pending");
    expect(text).toContain("Owner: ann");
    expect(text).toContain("Blocked by: #1 (pending)");
    expect(text).toContain("Blocks: none");
    expect(text).toContain('Metadata: {"source":"seed"}');
    expect(text).toContain("Write the code, fully.");
    expect(text).toMatch(/Created at: \d{4}-\d\d-\d\dT/);
  });

  it("deletes a task with status deleted, removing it from every other task's edges", async () => {
    const { board, call } = await threeTasks();
    await call("TaskUpdate", { task_id: "2", add_blocked_by: ["1"], add_blocks: ["3"] });
    const result = await call("TaskUpdate", { task_id: "2", status: "deleted" });
    expect(result.text).toBe("Deleted task #2: Write the code. Its dependency links with #1, #3 were removed.");
    expect((await board.list()).map((task) => [task.id, task.blocks, task.blockedBy])).toEqual([
      ["1", [], []],
      ["3", [], []],
    ]);
  });

  it("refuses a self-edge, an unknown id and a cycle with an error naming the ids", async () => {
    const { call } = await threeTasks();
    await call("TaskUpdate", { task_id: "2", add_blocked_by: ["1"] });
    await call("TaskUpdate", { task_id: "3", add_blocked_by: ["2"] });
    expect(await call("TaskUpdate", { task_id: "2", add_blocks: ["2"] })).toMatchObject({ isError: true, text: expect.stringMatching(/Task 2 cannot block or wait on itself/) });
    expect(await call("TaskUpdate", { task_id: "2", add_blocked_by: ["42"] })).toMatchObject({ isError: true, text: expect.stringMatching(/"42" does not exist \(existing ids: 1, 2, 3\)/) });
    expect(await call("TaskUpdate", { task_id: "1", add_blocked_by: ["3"] })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/task 1 wait on task 3 would close a cycle \(1 waits on 3 waits on 2 waits on 1\)/),
    });
    expect(await call("TaskGet", { task_id: "9" })).toMatchObject({ isError: true, text: expect.stringMatching(/"9" does not exist/) });
    expect(await call("TaskUpdate", { task_id: "9", status: "deleted" })).toMatchObject({ isError: true, text: expect.stringMatching(/"9" does not exist/) });
  });

  it("names an unknown id the same way in every tool: an empty board said so, a long one's ids summarized", async () => {
    const { board, call } = boardWithTools();
    expect((await call("TaskGet", { task_id: "7" })).text).toBe('Task "7" does not exist (the board is empty). Call TaskList to see the tasks.');
    await board.import(Array.from({ length: 25 }, (_, i) => ({ id: String(i + 1), subject: `t${i + 1}` })));
    const expected = expect.stringContaining("existing ids: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, … (25 in all)");
    expect((await call("TaskGet", { task_id: "99" })).text).toEqual(expected);
    expect((await call("TaskUpdate", { task_id: "99", status: "deleted" })).text).toEqual(expected);
    expect((await call("TaskUpdate", { task_id: "99", subject: "x" })).text).toEqual(expected);
  });

  it("never reuses ids, even after the highest task is deleted", async () => {
    const { call } = await threeTasks();
    await call("TaskUpdate", { task_id: "3", status: "deleted" });
    expect((await call("TaskCreate", { subject: "Again", description: "" })).text).toBe("Created task #4: Again");
  });

  it("merges metadata; a null value removes the key", async () => {
    const { board, call } = boardWithTools();
    await call("TaskCreate", { subject: "a", description: "", metadata: { keep: 1, drop: 2 } });
    await call("TaskUpdate", { task_id: "1", metadata: { drop: null, add: "x" } });
    expect((await board.get("1"))?.metadata).toEqual({ keep: 1, add: "x" });
  });

  it("walks the status flow and sets or clears the owner; an agentName becomes the owner of a started task", async () => {
    const { board, call } = boardWithTools({ agentName: "ann" });
    await call("TaskCreate", { subject: "a", description: "" });
    await call("TaskCreate", { subject: "b", description: "" });
    await call("TaskUpdate", { task_id: "1", status: "in_progress" });
    expect(await board.get("1")).toMatchObject({ state: "in_progress", owner: "ann" });
    await call("TaskUpdate", { task_id: "2", status: "in_progress", owner: "bob" });
    await call("TaskUpdate", { task_id: "2", owner: "" });
    expect(await board.get("2")).toMatchObject({ state: "in_progress", owner: null });
    await call("TaskUpdate", { task_id: "1", status: "completed", subject: "A done", description: "new" });
    expect(await board.get("1")).toMatchObject({ state: "completed", subject: "A done", description: "new", owner: "ann" });
    expect((await call("TaskList", {})).text).toBe("2 tasks: 1 in progress, 0 pending (0 ready to start), 1 completed.\n#1 [completed] A done (owner: ann)\n#2 [in_progress] b");
  });

  it("answers bad arguments with errors the model can act on, and forgives numeric or #-prefixed ids", async () => {
    const { board, call } = await threeTasks();
    expect(await call("TaskCreate", { description: "no subject" })).toMatchObject({ isError: true, text: expect.stringContaining("subject") });
    expect(await call("TaskCreate", { subject: "  ", description: "" })).toMatchObject({ isError: true, text: expect.stringContaining("subject") });
    expect(await call("TaskUpdate", { task_id: "1", status: "done" })).toMatchObject({ isError: true, text: expect.stringContaining("status") });
    expect(await call("TaskUpdate", { task_id: "1" })).toMatchObject({ isError: true, text: expect.stringMatching(/changed nothing/) });
    expect(await call("TaskUpdate", { task_id: "1", add_blocks: "2" })).toMatchObject({ isError: true, text: expect.stringContaining("add_blocks") });
    expect(await call("TaskGet", "{not json")).toMatchObject({ isError: true, text: expect.stringMatching(/not valid JSON/) });
    expect(await call("TaskUpdate", { task_id: 2, add_blocked_by: ["#1"] })).toMatchObject({ isError: false });
    expect((await board.get("2"))?.blockedBy).toEqual(["1"]);
  });
});

describe("TaskBoard in an agent", () => {
  it("lets the model plan and work through the tools, emitting tasks-updated for each change", async () => {
    const board = new TaskBoard({ agentName: "planner" });
    const model = scriptedModel([
      { toolCalls: [{ name: "TaskCreate", arguments: { subject: "Fetch requirements", description: "Read README.md" } }, { name: "TaskCreate", arguments: { subject: "Draft plan", description: "Write the plan" } }] },
      { toolCalls: [{ name: "TaskUpdate", arguments: { task_id: "2", add_blocked_by: ["1"] } }] },
      { toolCalls: [{ name: "TaskUpdate", arguments: { task_id: "1", status: "in_progress" } }] },
      { toolCalls: [{ name: "TaskUpdate", arguments: { task_id: "1", status: "completed" } }] },
      { toolCalls: [{ name: "TaskList", arguments: {} }] },
      "Requirements fetched; the plan is next.",
    ]);
    const agent = new Agent({ name: "planner", model, plugins: [board] });
    const events: AgentEvent[] = [];
    agent.on((event) => events.push(event));
    await agent.run("Plan the work");

    const updates = events.filter((event) => event.type === "tasks-updated");
    expect(updates.map((event) => [event.action, event.taskIds, event.boardId])).toEqual([
      ["created", ["1"], "memory"],
      ["created", ["2"], "memory"],
      ["updated", ["1", "2"], "memory"],
      ["updated", ["1"], "memory"],
      ["updated", ["1"], "memory"],
    ]);
    expect(agent.memory.at(-2)).toMatchObject({
      role: "tool",
      content: "2 tasks: 0 in progress, 1 pending (1 ready to start), 1 completed.\n#1 [completed] Fetch requirements (owner: planner)\n#2 [pending] Draft plan — #1 done",
    });
  });

  it("round-trips the board through the agent's saved state", async () => {
    const board = new TaskBoard();
    const agent = new Agent({ model: scriptedModel([]), plugins: [board] });
    await board.import([
      { id: "1", subject: "Fetch project requirements", description: "Read README.md", metadata: { source: "seed" } },
      { id: "2", subject: "Draft a plan", blockedBy: ["1"], state: "in_progress", owner: "ann" },
    ]);
    await board.remove("2");
    await board.create({ subject: "Third", description: "" });
    const saved = JSON.parse(JSON.stringify(agent.saveState()));

    const restoredBoard = new TaskBoard();
    const restored = new Agent({ model: scriptedModel([]), plugins: [restoredBoard] });
    restored.loadState(saved);
    expect(await restoredBoard.list()).toEqual(await board.list());
    expect((await restoredBoard.create({ subject: "next", description: "" })).id).toBe("4");
  });

  it("saves only a reference to a persistent board, which a restarted process opens again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stepwise-board-"));
    const path = join(dir, "tasks.db");
    try {
      const board = new TaskBoard({ store: new SqliteTaskStore({ path, boardId: "team" }) });
      await board.create({ subject: "Persist me", description: "" });
      const saved = board.saveState();
      expect(saved).toEqual({ version: 1, board: { kind: "reference", store: "sqlite", boardId: "team" } });
      await board.store.close();

      const reopened = new TaskBoard({ store: new SqliteTaskStore({ path, boardId: "team" }) });
      reopened.loadState(saved);
      expect((await reopened.list()).map((task) => task.subject)).toEqual(["Persist me"]);
      const elsewhere = new TaskBoard({ store: new SqliteTaskStore({ path, boardId: "other" }) });
      expect(() => elsewhere.loadState(saved)).toThrow(/refers to board "team".*board "other"/);
      await reopened.store.close();
      await elsewhere.store.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses saved state it cannot read", () => {
    const board = new TaskBoard();
    expect(() => board.loadState({ tasks: [] })).toThrow(/saveState/);
    expect(() => board.loadState({ version: 99, board: { kind: "snapshot", nextId: 1, tasks: [] } })).toThrow(/version 99/);
  });

  it("seeds, imports, resets and claims through the API, keeping edges consistent", async () => {
    const board = new TaskBoard({ agentName: "worker-a" });
    await board.import([
      { id: "1", subject: "a", blocks: ["3"] },
      { id: "2", subject: "b" },
      { id: "3", subject: "c", blockedBy: ["2"] },
    ]);
    expect((await board.get("3"))?.blockedBy).toEqual(["1", "2"]);
    await expect(board.import([{ id: "1", subject: "a", blockedBy: ["1"] }])).rejects.toThrow(/itself/);
    expect(await board.claimNext()).toMatchObject({ id: "1", owner: "worker-a", state: "in_progress" });
    expect(await board.claimNext("worker-b")).toMatchObject({ id: "2", owner: "worker-b" });
    expect(await board.claimNext()).toBeUndefined();
    await expect(new TaskBoard().claimNext()).rejects.toThrow(/needs an owner/);
    await board.reset();
    expect(await board.list()).toEqual([]);
    expect((await board.create({ subject: "fresh", description: "" })).id).toBe("4");
  });
});
