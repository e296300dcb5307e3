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
    let written = "";
    const out = new Writable({ write: (chunk: Buffer, _encoding, done) => ((written += chunk.toString()), done()) });
    await tasksList({ database }, out);
    expect(written).toMatch(/^No task board yet: the store is empty/);
    await expect(tasksList({ database, store: "mysql://x", board: "b" }, out)).rejects.toThrow(/unknown store "mysql:\/\/x"/);
    expect(openHandles(database)).toBe(0);
  });
});
