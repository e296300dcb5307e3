import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { it } from "vitest";
import { TaskBoard } from "../planning/tasks/task-board.js";
import { SqliteTaskStore } from "./sqlite-task-store.js";
import { EARLIER_BOARD, expectEarlierBoardWorks, SQLITE_TASKS_V0 } from "./test-support/earlier-task-schemas.js";

it("keeps a SQLite task board made by the first version working: view, claims, blockers, outside ids", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-earlier-"));
  const path = join(dir, "board.db");
  const old = new Database(path);
  old.exec(SQLITE_TASKS_V0);
  old.prepare("INSERT INTO stepwise_task_boards (board_id, next_id) VALUES ('legacy', 7)").run();
  const insert = old.prepare(
    "INSERT INTO stepwise_tasks (board_id, id, subject, description, state, owner, blocks, blocked_by, metadata, created_at) VALUES ('legacy', ?, ?, '', ?, ?, ?, ?, ?, ?)",
  );
  for (const [id, state, owner, blocks, blockedBy, metadata] of EARLIER_BOARD) {
    insert.run(id, `Task ${id}`, state, owner, JSON.stringify(blocks.map(String)), JSON.stringify(blockedBy.map(String)), JSON.stringify(metadata), new Date().toISOString());
  }
  old.close();
  const board = new TaskBoard({ store: new SqliteTaskStore({ path, boardId: "legacy" }) });
  try {
    await expectEarlierBoardWorks(board);
  } finally {
    await board.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
