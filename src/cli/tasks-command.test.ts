import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { SqliteRunStore } from "../stores/sqlite-run-store.js";
import { SqliteTaskStore } from "../stores/sqlite-task-store.js";
import { tasksList } from "./tasks-command.js";
import { openHandles } from "./test-support/open-handles.js";

describe("tasksList", () => {
  it("closes the SQLite file when there is no board to read or the store is unknown", async () => {
    const database = join(mkdtempSync(join(tmpdir(), "stepwise-tasks-")), "stepwise.db");
    let written = "";
    const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
    await expect(tasksList({ database }, out)).rejects.toThrow(`there is no store at ${database}`);
    expect(existsSync(database)).toBe(false);
    await new SqliteRunStore(database).close();
    await tasksList({ database }, out);
    expect(written).toMatch(/^No task board yet in the store /);
    await expect(tasksList({ database, store: "mysql://x", board: "b" }, out)).rejects.toThrow(/unknown store "mysql:\/\/x"/);
    expect(openHandles(database)).toBe(0);
  });
});

describe("stepwise tasks list on a large board", () => {
  it("shows the model's bounded view: a summary, at most the limit, what was left out, and the filters", async () => {
    const database = join(mkdtempSync(join(tmpdir(), "stepwise-tasks-")), "stepwise.db");
    const store = new SqliteTaskStore({ path: database, boardId: "big" });
    await store.replaceAll(Array.from({ length: 300 }, (_, i) => ({ id: String(i + 1), subject: `Task ${i + 1}`, description: "" })));
    await store.update("7", { state: "completed" });
    await store.close();
    const read = async (opts: object) => {
      let written = "";
      const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
      await tasksList({ database, board: "big", ...opts }, out);
      return written;
    };
    const all = await read({});
    expect(all.split("\n").length).toBeLessThan(60);
    expect(all).toMatch(/300/);
    expect(all).toMatch(/left out|not shown|more/);
    const done = await read({ status: "completed" });
    expect(done).toContain("Task 7");
    expect(done).not.toContain("Task 8");
    expect((await read({ limit: 5 })).split("\n").length).toBeLessThan(12);
  });
});
