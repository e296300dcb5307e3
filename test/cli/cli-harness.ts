import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

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
      env: { PATH: process.env["PATH"] ?? "", HOME: home, STEPWISE_HOME: home, ...opts.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 60_000);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(opts.input ?? "");
  });
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
