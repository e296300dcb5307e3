import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";

// tsx as a loader of the service process itself, so a kill -9 of it leaves nothing running.
const TSX_LOADER = new URL("../../../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const SCRIPT = fileURLToPath(new URL("./serve-stepwise-runs.ts", import.meta.url));

/** A service process (serve-stepwise-runs.ts) serving Stepwise runs to Restate on a port of this machine. */
export class ServiceProcess {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #lines: string[] = [];
  #stderr = "";
  #waiters: { match: RegExp; resolve: (line: string) => void }[] = [];
  readonly exited: Promise<void>;

  private constructor(args: string[]) {
    // The timeout ends a process a failing test left behind.
    this.#child = spawn(process.execPath, ["--import", TSX_LOADER, SCRIPT, ...args], { stdio: ["pipe", "pipe", "pipe"], timeout: 180_000 });
    let buffer = "";
    this.#child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      for (let end = buffer.indexOf("\n"); end >= 0; end = buffer.indexOf("\n")) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 1);
        this.#lines.push(line);
        this.#waiters = this.#waiters.filter((waiter) => {
          if (!waiter.match.test(line)) return true;
          waiter.resolve(line);
          return false;
        });
      }
    });
    this.#child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.#stderr = (this.#stderr + chunk).slice(-20_000)));
    this.exited = new Promise((resolve) => this.#child.once("exit", () => resolve()));
  }

  /** Starts one on `port` and resolves once it listens; `hold` stops one call for good (see serve-stepwise-runs.ts). */
  static async start(port: number, store: string, ledger: string, hold?: `model:${number}` | `tool:${string}`): Promise<ServiceProcess> {
    const service = new ServiceProcess([String(port), store, ledger, ...(hold ? [hold] : [])]);
    await service.line(/^listening /);
    return service;
  }

  get lines(): readonly string[] {
    return this.#lines;
  }

  /** The first line (printed already or still to come) that `match` accepts; rejects if the process exits first. */
  line(match: RegExp): Promise<string> {
    const seen = this.#lines.find((line) => match.test(line));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.#waiters.push({ match, resolve });
      void this.exited.then(() => {
        const late = this.#lines.find((line) => match.test(line));
        if (late) resolve(late);
        else reject(new Error(`the service process exited without printing ${match}: ${this.#lines.join(" | ")}\n${this.#stderr}`));
      });
    });
  }

  /** kill -9, and waits until it is gone. */
  async kill(): Promise<void> {
    this.#child.kill("SIGKILL");
    await this.exited;
  }

  /** Lets it exit on its own (its stdin closes). */
  async stop(): Promise<void> {
    this.#child.stdin.end();
    await this.exited;
  }
}
