import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryTaskStore } from "../planning/tasks/memory-task-store.js";
import { SqliteTaskStore } from "./sqlite-task-store.js";
import * as vitest from "vitest";
import { describeTaskStore } from "../testing.js";

describeTaskStore("memory", async () => {
  const store = new MemoryTaskStore();
  return { store, reopen: async () => new MemoryTaskStore(), cleanup: async () => {} };
}, vitest);

describeTaskStore("sqlite", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-tasks-"));
  const path = join(dir, "board.db");
  const store = new SqliteTaskStore({ path, boardId: "suite" });
  return {
    store,
    reopen: async () => new SqliteTaskStore({ path, boardId: "suite" }),
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}, vitest);
