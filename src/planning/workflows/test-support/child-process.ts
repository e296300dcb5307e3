import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

// tsx as a loader of this very process (not the tsx command, which runs the script in a second process
// that a kill -9 of the first would leave running).
const TSX_LOADER = new URL("../../../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;
const SCRIPT = fileURLToPath(new URL("./resumable-run.ts", import.meta.url));

export type ResumableChild = {
  /** Resolves once the process has printed a line equal to `line`. */
  printed(line: string): Promise<void>;
  /** Resolves with the exit code (or the signal that ended it) and everything printed. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>;
  process: ChildProcess;
};

/** Starts resumable-run.ts in its own process. */
export function startResumableRun(kind: "compiler" | "plan-and-execute", dir: string, phase: "start" | "resume"): ResumableChild {
  // The timeout ends a stuck child, so a failing test never leaves a process behind.
  const child = spawn(process.execPath, ["--import", TSX_LOADER, SCRIPT, kind, dir, phase], { stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 });
  let stdout = "";
  let stderr = "";
  const waiters: { line: string; resolve(): void }[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = new Set(stdout.split("\n"));
    for (const waiter of waiters.splice(0)) {
      if (lines.has(waiter.line)) waiter.resolve();
      else waiters.push(waiter);
    }
  });
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return {
    process: child,
    exited,
    printed: (line) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.split("\n").includes(line)) return resolve();
        waiters.push({ line, resolve });
        void exited.then(({ code, stderr: err }) => reject(new Error(`the run exited (${String(code)}) before printing "${line}": ${stdout}\n${err}`)));
      }),
  };
}
