import { execFileSync } from "node:child_process";
import { createServer, type Server } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let workspace: TempWorkspace;
let socketServer: Server;
beforeAll(async () => {
  workspace = tempWorkspace({ "notes.txt": "needle in a note" });
  execFileSync("mkfifo", [path.join(workspace.root, "pipe")]); // nobody ever writes to it
  socketServer = createServer();
  await new Promise<void>((resolve) => socketServer.listen(path.join(workspace.root, "sock"), resolve));
});
afterAll(async () => {
  await new Promise((resolve) => socketServer.close(resolve));
  workspace.remove();
});

describe("FIFOs and sockets in the workspace", () => {
  it("read_file on a FIFO answers at once with an error, however many times it is asked", async () => {
    const results = await Promise.all(Array.from({ length: 8 }, () => workspace.tool("read_file").invoke({ path: "pipe" })));
    for (const result of results) {
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(/"pipe" is a FIFO \(named pipe\), not a regular file; the workspace tools only open regular files and folders/);
    }
    // The I/O threads are all free: ordinary files still work.
    expect((await workspace.tool("write_file").invoke({ path: "after.txt", content: "still works" })).isError).toBe(false);
    expect(workspace.read("after.txt")).toBe("still works");
    expect((await workspace.tool("read_file").invoke({ path: "after.txt" })).text).toBe("1\tstill works");
  });

  it("edit_file, write_file and search refuse them or pass them over; list_dir shows them", async () => {
    for (const name of ["pipe", "sock"]) {
      const edit = await workspace.tool("edit_file").invoke({ path: name, old_text: "a", new_text: "b" });
      expect(edit.text).toMatch(/not a regular file/);
      const write = await workspace.tool("write_file").invoke({ path: name, content: "x" });
      expect(write.text).toMatch(/not a regular file/);
      expect((await workspace.tool("search").invoke({ pattern: "x", path: name })).text).toMatch(/not a regular file/);
    }
    expect((await workspace.tool("read_file").invoke({ path: "sock" })).text).toMatch(/"sock" is a socket/);
    expect((await workspace.tool("search").invoke({ pattern: "needle" })).text).toBe("notes.txt:1: needle in a note");
    expect((await workspace.tool("list_dir").invoke({})).text).toMatch(/^after\.txt .*\nnotes\.txt \(16 bytes\)\npipe \(0 bytes\)\nsock \(0 bytes\)$/);
  });
});
