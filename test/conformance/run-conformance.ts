// `npm run test:conformance`: the official MCP conformance suite (pinned in package.json) against
// `stepwise mcp --http` and against the mcpTools client, checked against baseline.json: every
// scenario listed there as passing must pass; the others are listed with the reason they do not apply.
import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SUITE = join(ROOT, "node_modules/.bin/conformance");
const TSX = join(ROOT, "node_modules/.bin/tsx");
const CLIENT = join(ROOT, "test/conformance/mcp-client.ts");
const CLI = join(ROOT, "dist/cli/main.js");
const SCENARIO_TIMEOUT_MS = 120_000;

type Baseline = { suite: string; server: { pass: string[] }; client: { pass: string[] } };
const baseline = JSON.parse(readFileSync(join(ROOT, "test/conformance/baseline.json"), "utf8")) as Baseline;
const run = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), "stepwise-conformance-"));

/** Starts the MCP server on a free port; resolves with its URL once it says it listens. */
async function startServer(): Promise<{ url: string; stop(): void }> {
  const child = spawn(process.execPath, [CLI, "mcp", "--http", "--port", "0"], {
    env: { ...process.env, STEPWISE_HOME: join(work, "home") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = "";
    // The server says where it listens on stderr: stdout is the stdio transport's, when not --http.
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /MCP server on (\S+)/.exec(out);
      if (match?.[1]) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`stepwise mcp exited with ${String(code)} before listening: ${out}`)));
  });
  return { url, stop: () => child.kill() };
}

/** One scenario's verdict from the checks the suite saves (its console output is lost when piped). */
async function scenario(args: string[]): Promise<{ ok: boolean; summary: string }> {
  const out = mkdtempSync(join(work, "results-"));
  const exit = await run(SUITE, [...args, "--output-dir", out], { cwd: work, timeout: SCENARIO_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }).then(
    () => "",
    (error: Error) => error.message.split("\n")[0] ?? "",
  );
  const checks = checksUnder(out);
  const failed = checks.filter((check) => check.status === "FAILURE");
  const succeeded = checks.filter((check) => check.status === "SUCCESS").length;
  const summary = `${succeeded} of ${succeeded + failed.length} checks succeeded${failed.length ? `; failed: ${failed.map((c) => `${c.name} (${c.errorMessage ?? ""})`).join(", ")}` : ""}${exit ? `; ${exit}` : ""}`;
  return { ok: checks.length > 0 && failed.length === 0 && exit === "", summary };
}

type Check = { name: string; status: string; errorMessage?: string };

function checksUnder(dir: string): Check[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith("checks.json"))
    .flatMap((file) => JSON.parse(readFileSync(join(dir, file), "utf8")) as Check[]);
}

const failures: string[] = [];
let passed = 0;
const report = (kind: string, name: string, verdict: { ok: boolean; summary: string }) => {
  process.stdout.write(`${verdict.ok ? "pass" : "FAIL"}  ${kind} ${name}: ${verdict.summary}\n`);
  if (verdict.ok) passed++;
  else failures.push(`${kind} ${name}`);
};

process.stdout.write(`MCP conformance (${baseline.suite})\n`);
const server = await startServer();
try {
  for (const name of baseline.server.pass) report("server", name, await scenario(["server", "--url", server.url, "--scenario", name]));
} finally {
  server.stop();
}
for (const name of baseline.client.pass) report("client", name, await scenario(["client", "--command", `${TSX} ${CLIENT}`, "--scenario", name]));
rmSync(work, { recursive: true, force: true });

const total = baseline.server.pass.length + baseline.client.pass.length;
process.stdout.write(`conformance: ${passed} of ${total} baseline scenarios pass\n`);
if (failures.length > 0) {
  process.stderr.write(`conformance: these baseline scenarios failed: ${failures.join(", ")}\n`);
  process.exit(1);
}
