import { createInterface } from "node:readline";
import { boundedText } from "../core/bounded-quote.js";
import type { DecisionPrompter } from "./approval-prompt.js";
import { chosenEditor, editInEditor } from "./approval-prompt.js";

/**
 * Reads the user's answers line by line from standard input (a terminal or a pipe of scripted
 * answers). When input ends, `ask` returns null and the run stays paused, saved. Editing opens
 * `$VISUAL`/`$EDITOR` in a terminal; piped, or with no editor set, the edited text is read as one line.
 * Piped answers are echoed after their prompt, as a terminal shows what is typed.
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
  // A terminal echoes what is typed, newline included; piped answers are echoed here, so the prompt's
  // line ends as in a terminal and what comes next starts a line of its own.
  let closed = false;
  const answered = (line: string | null): string | null => {
    if (!input.isTTY && !closed) output.write(line === null ? "\n" : `${boundedText(line)}\n`);
    return line;
  };
  const ask = async (question: string): Promise<string | null> => {
    output.write(question);
    const line = lines.shift();
    if (line !== undefined) return answered(line);
    if (ended) return answered(null);
    return answered(await new Promise<string | null>((resolve) => waiters.push(resolve)));
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
    // A question still open is given up: nothing more is written for it.
    close: () => {
      closed = true;
      reader.close();
    },
  };
}
