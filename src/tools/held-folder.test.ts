import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BENEATH, HeldFolder, MovedError } from "./held-folder.js";

let base: string;
let root: string;
let outside: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(tmpdir(), "stepwise-held-")));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  mkdirSync(path.join(root, "sub"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, "sub", "a.txt"), "inside");
  writeFileSync(path.join(outside, "a.txt"), "outside");
  symlinkSync(outside, path.join(root, "out"));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

// Both ways of naming a child: through the descriptor (Linux) and by path string (the fallback).
describe.each([
  ["through the descriptor", true],
  ["by path string (without /proc)", false],
])("HeldFolder, children named %s", (_, beneath) => {
  it.skipIf(beneath && !BENEATH)("opens folders and files, lists names and replaces a file by rename", async () => {
    const top = await HeldFolder.openRoot(root, beneath);
    const sub = await top.openFolder("sub");
    expect(sub.relative).toBe("sub");
    expect((await sub.names()).sort()).toEqual(["a.txt"]);
    const { handle, stats } = await sub.openFile("a.txt");
    expect(stats.isFile()).toBe(true);
    expect((await handle.readFile()).toString()).toBe("inside");
    await handle.close();
    await sub.replace("a.txt", "replaced");
    expect(readFileSync(path.join(root, "sub", "a.txt"), "utf8")).toBe("replaced");
    expect(readdirSync(path.join(root, "sub"))).toEqual(["a.txt"]);
    await sub.close();
    await top.close();
  });

  it.skipIf(beneath && !BENEATH)("never follows a link in place of a folder or a file", async () => {
    const top = await HeldFolder.openRoot(root, beneath);
    expect((await top.look("out"))?.isSymbolicLink()).toBe(true);
    await expect(top.openFolder("out")).rejects.toMatchObject({ code: "ENOTDIR" });
    symlinkSync(path.join(outside, "a.txt"), path.join(root, "file-link"));
    await expect(top.openFile("file-link")).rejects.toMatchObject({ code: "ELOOP" });
    await top.close();
  });
});

describe.runIf(BENEATH)("HeldFolder through the descriptor", () => {
  it("keeps naming the folder it opened after the path is swapped for a link to outside", async () => {
    const top = await HeldFolder.openRoot(root);
    const sub = await top.openFolder("sub");
    renameSync(path.join(root, "sub"), path.join(root, "sub-moved"));
    symlinkSync(outside, path.join(root, "sub"));
    await sub.replace("a.txt", "still inside");
    expect(readFileSync(path.join(root, "sub-moved", "a.txt"), "utf8")).toBe("still inside");
    expect(readFileSync(path.join(outside, "a.txt"), "utf8")).toBe("outside");
    await sub.close();
    await top.close();
  });

  it("refuses to use a folder that was moved out of the root", async () => {
    const top = await HeldFolder.openRoot(root);
    const sub = await top.openFolder("sub");
    renameSync(path.join(root, "sub"), path.join(outside, "sub"));
    await expect(sub.openFile("a.txt")).rejects.toBeInstanceOf(MovedError);
    await expect(sub.replace("a.txt", "x")).rejects.toThrow("was moved outside the workspace");
    await expect(sub.makeFolder("new")).rejects.toBeInstanceOf(MovedError);
    expect(readdirSync(path.join(outside, "sub"))).toEqual(["a.txt"]);
    await sub.close();
    await top.close();
  });
});
