// Regression: the README's `openRuns` example aborted its own run: `await runs.resume(...)` returns a
// handle at once, and the next line, `await runs.close()`, stopped the resumed run before its approved
// write (status "aborted", report.md never written). The example is taken from the README as written
// and run in a process of its own, against a local OpenAI-compatible server standing in for the provider.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { inTurn, startTestServer, type TestServer } from "../src/models/test-support/http-server.js";
import { assistantTurn } from "../src/models/test-support/streamed-replies.js";

const distEntry = new URL("../dist/runs/index.js", import.meta.url).href;
const { openRuns } = (await import(distEntry)) as typeof import("../src/runs/index.js");
const TSX_LOADER = new URL("../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

/** The code block of the README's "Runs as a library" section. */
function runsExample(): string {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const section = readme.slice(readme.indexOf("## Runs as a library"));
  const code = /```ts\n([\s\S]*?)\n```/.exec(section)?.[1];
  if (!code) throw new Error("the README has no ts block under \"Runs as a library\"");
  return code;
}

it("the README's openRuns example, run as written, finishes its run and writes the report", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-readme-runs-"));
  mkdirSync(join(dir, "notes"));
  writeFileSync(join(dir, "notes", "a.md"), "# Alpha\n");
  const store = join(dir, "runs.db");
  const example = runsExample();
  // Only where it runs changes: the store the comment offers (a SQLite file) and the package as built here.
  expect(example).toContain('openRuns({ store: "postgres://me@db/stepwise" })');
  expect(example).toContain('from "stepwise/runs"');
  const script = example.replace('"postgres://me@db/stepwise"', JSON.stringify(store)).replace('from "stepwise/runs"', `from ${JSON.stringify(distEntry)}`);
  // A module, as in a project with "type": "module": the example awaits at its top level.
  writeFileSync(join(dir, "example.mts"), script);

  const write = assistantTurn({ calls: [{ id: "w1", name: "write_file", arguments: { path: "report.md", content: "# Notes\n\nAlpha.\n" } }] });
  const server = await startTestServer(inTurn(write, assistantTurn("Summarised the notes into report.md.")));
  servers.push(server);
  const child = spawn(process.execPath, ["--import", TSX_LOADER, join(dir, "example.mts")], {
    cwd: dir,
    env: { PATH: process.env["PATH"] ?? "", HOME: dir, OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 60_000,
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(code, output).toBe(0);
  // It printed the events of the run up to its pause ("backlog, then live").
  expect(output).toMatch(/^\d+ approval-requested$/m);

  expect(existsSync(join(dir, "notes", "report.md"))).toBe(true);
  const runs = openRuns({ store });
  try {
    expect(await runs.list()).toMatchObject([{ status: "final", answer: "Summarised the notes into report.md." }]);
  } finally {
    await runs.close();
  }
  expect(server.requests).toHaveLength(2);
}, 60_000);
