import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** A command line (as --mcp takes it) that runs one of the repository's TypeScript files with tsx: a test MCP server. */
export function tsxCommandLine(script: string, ...args: string[]): string {
  return [`"${join(ROOT, "node_modules/.bin/tsx")}"`, `"${join(ROOT, script)}"`, ...args].join(" ");
}

export type CliResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** Runs the built `stepwise` command as a user would, with its own store folder. */
export function runCli(
  args: string[],
  opts: { home?: string; input?: string; env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  const home = opts.home ?? freshHome();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? home,
      env: { PATH: process.env["PATH"] ?? "", TMPDIR: tmpdir(), HOME: home, STEPWISE_HOME: home, ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? Math.max(60_000, cliTestTimeout(1)));
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    // A command that exits before reading its input closes the pipe; that is its answer, not the test's error.
    child.stdin.on("error", () => undefined);
    child.stdin.end(opts.input ?? "");
  });
}

let startMs: number | undefined;

/**
 * A test's timeout when it runs the CLI `processes` times, scaled by how long the CLI takes to start
 * on this machine now (timed once per test file): at load 10 a start that takes 0.3 s idle takes
 * seconds, so a fixed 30 s for four runs fails there while each run is fine.
 */
export function cliTestTimeout(processes: number): number {
  if (startMs === undefined) {
    const started = performance.now();
    spawnSync(process.execPath, [CLI, "--version"], { stdio: "ignore" });
    startMs = performance.now() - started;
  }
  return 10_000 + processes * Math.max(8_000, 25 * startMs);
}

/** A `stepwise` command left running: what it printed so far, and its end. */
export type StartedCli = {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves with the match once stdout matches `pattern`; rejects if the command exits first. */
  printed(pattern: RegExp): Promise<RegExpExecArray>;
};

/**
 * Starts the built `stepwise` command and leaves it running (a worker, a viewer, a run to stop). With
 * `stdin: "open"` its input stays open and says nothing, as a terminal nobody types in.
 */
export function startCli(args: string[], opts: { home: string; stdin?: "open" }): StartedCli {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: opts.home,
    env: { PATH: process.env["PATH"] ?? "", TMPDIR: tmpdir(), HOME: opts.home, STEPWISE_HOME: opts.home },
    stdio: [opts.stdin === "open" ? "pipe" : "ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const printed = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const match = pattern.exec(stdout);
        if (!match) return;
        child.stdout?.off("data", look);
        resolve(match);
      };
      child.stdout?.on("data", look);
      void exited.then(() => reject(new Error(`exited before printing ${pattern}: ${stdout}${stderr}`)));
      look();
    });
  return { child, stdout: () => stdout, stderr: () => stderr, exited, printed };
}

export function freshHome(): string {
  return mkdtempSync(join(tmpdir(), "stepwise-cli-"));
}

/** A small workspace inside `home`: docs/a.md (2 lines) and b.txt (1 line). */
export function workspace(home: string): string {
  const dir = join(home, "ws");
  mkdirSync(join(dir, "docs"), { recursive: true });
  writeFileSync(join(dir, "docs", "a.md"), "# Alpha\nline two\n");
  writeFileSync(join(dir, "b.txt"), "bravo\n");
  return dir;
}
