import { createInterface } from "node:readline";
import type { DecisionPrompter } from "./approval-prompt.js";
import { editInEditor } from "./approval-prompt.js";

/**
 * Reads the user's answers line by line from standard input (a terminal or a pipe of scripted
 * answers). When input ends, `ask` returns null and the run stays paused, saved.
 */
export function terminalPrompter(input: NodeJS.ReadableStream, output: NodeJS.WritableStream): DecisionPrompter & { close(): void } {
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
  return {
    ask(question) {
      output.write(question);
      const line = lines.shift();
      if (line !== undefined) return Promise.resolve(line);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiters.push(resolve));
    },
    write: (text) => void output.write(text),
    edit: async (text) => editInEditor(text),
    close: () => reader.close(),
  };
}
