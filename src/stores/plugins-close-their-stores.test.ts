import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { Agent } from "../core/agent.js";
import { scriptedModel } from "../models/scripted.js";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { TaskBoard } from "../planning/tasks/task-board.js";
import { openSqliteDatabase } from "./sqlite-database.js";
import { SqlitePlanStore } from "./sqlite-plan-store.js";
import { SqliteTaskStore } from "./sqlite-task-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "stepwise-close-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("Agent.close closes what the planning plugins opened", () => {
  it("closes a task board's store, and closing again (the agent, another agent, the store itself) is harmless", async () => {
    const board = new TaskBoard({ store: new SqliteTaskStore({ path: join(dir, "tasks.db") }) });
    await board.create({ subject: "a", description: "" });
    const agent = new Agent({ model: scriptedModel([]), plugins: [board] });
    const other = new Agent({ model: scriptedModel([]), plugins: [board] });

    await agent.close();
    await expect(board.list()).rejects.toThrow(/not open/);
    await expect(agent.close()).resolves.toBeUndefined();
    await expect(other.close()).resolves.toBeUndefined();
    await expect(board.store.close()).resolves.toBeUndefined();
  });

  it("closes a plan notebook's storage opened from a path, and closing again is harmless", async () => {
    const storage = new SqlitePlanStore(join(dir, "plans.db"));
    const notebook = new PlanNotebook({ storage });
    const agent = new Agent({ model: scriptedModel([]), plugins: [notebook] });

    await agent.close();
    await expect(storage.list()).rejects.toThrow(/not open/);
    await expect(agent.close()).resolves.toBeUndefined();
    await expect(storage.close()).resolves.toBeUndefined();
  });

  it("leaves a database the caller opened and handed in open", async () => {
    const db = openSqliteDatabase(join(dir, "shared.db"));
    try {
      const notebook = new PlanNotebook({ storage: new SqlitePlanStore(db) });
      const board = new TaskBoard({ store: new SqliteTaskStore({ db }) });
      await new Agent({ model: scriptedModel([]), plugins: [notebook, board] }).close();
      expect(db.open).toBe(true);
      expect(await notebook.store.list()).toEqual([]);
      expect(await board.list()).toEqual([]);
    } finally {
      db.close();
    }
  });
});
