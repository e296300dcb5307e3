import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { tasksList } from "./tasks-command.js";
import { openHandles } from "./test-support/open-handles.js";

describe("tasksList", () => {
  it("closes the SQLite file when there is no board to read or the store is unknown", async () => {
    const database = join(mkdtempSync(join(tmpdir(), "stepwise-tasks-")), "stepwise.db");
    const out = new Writable({ write: (_chunk, _encoding, done) => done() });
    await expect(tasksList({ database }, out)).rejects.toThrow(/no task board yet/);
    await expect(tasksList({ database, store: "mysql://x", board: "b" }, out)).rejects.toThrow(/unknown store "mysql:\/\/x"/);
    expect(openHandles(database)).toBe(0);
  });
});
