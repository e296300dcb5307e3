import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach } from "vitest";

const SCRIPT = fileURLToPath(new URL("./run-process.mjs", import.meta.url));
export { freshSchema } from "../../src/stores/test-support/fresh-schema.js";

/** The package as built (`npm run build` first): what a user's processes run. */
export const built = (await import(new URL("../../dist/runs/index.js", import.meta.url).href)) as typeof import("../../src/runs/index.js");

/** Starts driver processes for a test file; any still running when a test ends is killed. */
export function driverProcesses(): (args: string[], env?: NodeJS.ProcessEnv) => RunProcess {
  const children: RunProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) if (child.child.exitCode === null) child.child.kill("SIGKILL");
  });
  return (args, env) => {
    const child = new RunProcess(args, env);
    children.push(child);
    return child;
  };
}

/** A driver process (test/runs/run-process.mjs) whose output lines can be waited for. */
export class RunProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: string[] = [];
  readonly exited: Promise<number | null>;
  #waiters: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  #stderr = "";

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(process.execPath, [SCRIPT, ...args], { stdio: ["pipe", "pipe", "pipe"], env: { ...process.env, ...env } });
    let buffer = "";
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        this.lines.push(line);
        this.#waiters = this.#waiters.filter((waiter) => {
          if (!waiter.match(line)) return true;
          waiter.resolve(line);
          return false;
        });
      }
    });
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.#stderr += chunk));
    this.exited = new Promise((resolve) => this.child.on("exit", (code) => resolve(code)));
  }

  /** The first line (already printed or still to come) that `match` accepts; rejects if the process exits first. */
  line(match: RegExp): Promise<string> {
    const seen = this.lines.find((line) => match.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.#waiters.push({ match: (line) => match.test(line), resolve });
      void this.exited.then((code) => {
        const late = this.lines.find((line) => match.test(line));
        if (late) resolve(late);
        else reject(new Error(`exited (${String(code)}) without printing ${match}: ${this.lines.join(" | ")} ${this.#stderr}`));
      });
    });
  }

  /** The first line matching `next` that comes after the first line matching `first`. */
  async lineAfter(first: RegExp, next: RegExp): Promise<string> {
    const anchor = await this.line(first);
    const after = (line: string) => next.test(line) && this.lines.indexOf(line) > this.lines.indexOf(anchor);
    const seen = this.lines.find(after);
    if (seen) return seen;
    return new Promise((resolve, reject) => {
      this.#waiters.push({ match: after, resolve });
      void this.exited.then((code) => reject(new Error(`exited (${String(code)}) without printing ${next} after ${first}: ${this.lines.join(" | ")} ${this.#stderr}`)));
    });
  }

  /** Lets the held tool call return. */
  release(): void {
    this.child.stdin.write("go\n");
  }
}
