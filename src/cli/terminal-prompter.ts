import { createInterface } from "node:readline";
import type { DecisionPrompter } from "./approval-prompt.js";
import { chosenEditor, editInEditor } from "./approval-prompt.js";

/**
 * Reads the user's answers line by line from standard input (a terminal or a pipe of scripted
 * answers). When input ends, `ask` returns null and the run stays paused, saved. Editing opens
 * `$VISUAL`/`$EDITOR` in a terminal; piped, or with no editor set, the edited text is read as one line.
 */
export function terminalPrompter(
  input: NodeJS.ReadableStream & { isTTY?: boolean },
  output: NodeJS.WritableStream,
  env: NodeJS.ProcessEnv = process.env,
): DecisionPrompter & { close(): void } {
  const lines: string[] = [];
  const waiters: ((line: string | null) => void)[] = [];
  let ended = false;
  const reader = createInterface({ input, terminal: false });
  reader.on("line", (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  reader.on("close", () => {
    ended = true;
    for (const waiter of waiters.splice(0)) waiter(null);
  });
  const ask = (question: string): Promise<string | null> => {
    output.write(question);
    const line = lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.resolve(null);
    return new Promise((resolve) => waiters.push(resolve));
  };
  return {
    ask,
    write: (text) => void output.write(text),
    edit: async (text, what) => {
      const editor = chosenEditor(env);
      if (input.isTTY && editor) return editInEditor(text, editor);
      if (input.isTTY) output.write("No editor is set (EDITOR or VISUAL), so type the change here instead.\n");
      return ask(`${what}> `);
    },
    close: () => reader.close(),
  };
}
