import { writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { terminalPrompter } from "./terminal-prompter.js";

function setup(isTTY: boolean, env: NodeJS.ProcessEnv) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => (shown += chunk.toString()));
  const prompter = terminalPrompter(input, output, env);
  return { input, prompter, shown: () => shown };
}

describe("terminalPrompter.edit", () => {
  it("piped, reads the edit as one line and never starts the editor", async () => {
    const { input, prompter, shown } = setup(false, { EDITOR: "false" });
    input.write('{"path":"b.md"}\n');
    expect(await prompter.edit('{"path":"a.md"}', "the edited arguments")).toBe('{"path":"b.md"}');
    expect(shown()).toBe('the edited arguments> {"path":"b.md"}\n');
    prompter.close();
  });

  it("in a terminal with no editor set, says so and reads one line instead", async () => {
    const { input, prompter, shown } = setup(true, {});
    input.write("[1]\n");
    expect(await prompter.edit("[0]", "the edited arguments")).toBe("[1]");
    expect(shown()).toBe("No editor is set (EDITOR or VISUAL), so type the change here instead.\nthe edited arguments> ");
    prompter.close();
  });

  it("in a terminal, opens $EDITOR on the text and returns what it saved", async () => {
    const dir = mkdtempSync(join(tmpdir(), "stepwise-editor-"));
    const editor = join(dir, "edit.sh");
    writeFileSync(editor, `#!/bin/sh\nsed -i 's/a.md/c.md/' "$1"\n`, { mode: 0o755 });
    const { prompter } = setup(true, { EDITOR: editor });
    expect(await prompter.edit('{"path":"a.md"}', "the edited arguments")).toBe('{"path":"c.md"}');
    prompter.close();
  });

  it("returns null when input ends before the edit is typed", async () => {
    const { input, prompter } = setup(false, {});
    input.end();
    expect(await prompter.edit("x", "the edit")).toBeNull();
  });
});
