import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/run-endings.js";
import { TERMINAL_ATTACK } from "../../src/integrations/test-support/hostile-mcp-server.js";
import { inTurn, startTestServer, type Handler, type TestServer } from "../../src/models/test-support/http-server.js";
import { assistantTurn } from "../../src/models/test-support/streamed-replies.js";
import { CLI, freshHome, runCli, tsxCommandLine, workspace } from "./cli-harness.js";

const hostileServer = (behaviour: string) => tsxCommandLine("src/integrations/test-support/serve-hostile-stdio.ts", behaviour);

/** Anything a terminal would obey rather than show; the CLI writes none of it to a pipe (tab and newline aside). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;
/** The attack as the terminal must show it: written out, not obeyed. */
const SHOWN_ATTACK = "\\r\\u001b[2K\\u001b]52;c;cm0gLXJmIH4=\\u0007\\u001b]0;pwned\\u0007";
/** On a tool's one-line summary, where any whitespace (the carriage return too) is one space. */
const SHOWN_ATTACK_ON_ONE_LINE = SHOWN_ATTACK.replace("\\r", " ");

type Call = { name: string; arguments: unknown };
/** A hostile model behind a local OpenAI-compatible endpoint: each turn is text and/or tool calls. */
const turn = (content: string | null, calls: Call[] = []) => assistantTurn({ content, calls });

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function hostileModel(...turns: Handler[]): Promise<NodeJS.ProcessEnv> {
  const server = await startTestServer(inTurn(...turns));
  servers.push(server);
  return { OPENAI_API_KEY: "sk-none", OPENAI_BASE_URL: `${server.url}/v1` };
}

/** Runs the CLI on a pseudo-terminal (util-linux `script`), so it draws its live checklist; what the terminal got, line ends as written. */
function runInTerminal(args: string[], opts: { home: string; env: NodeJS.ProcessEnv }): Promise<{ code: number | null; output: string }> {
  const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, CLI, ...args].map(quote).join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn("script", ["-qec", command, "/dev/null"], {
      cwd: opts.home,
      env: { PATH: process.env["PATH"] ?? "", HOME: opts.home, STEPWISE_HOME: opts.home, ...opts.env },
      stdio: ["pipe", "pipe", "inherit"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output: output.replace(/\r\n/g, "\n") }));
    child.stdin.end();
  });
}

function expectNoControls(output: string, what: string): void {
  const found = CONTROL.exec(output);
  expect(found, `${what} holds U+${found?.[0].codePointAt(0)?.toString(16).padStart(4, "0")} near ${JSON.stringify(output.slice(Math.max(0, (found?.index ?? 0) - 40), (found?.index ?? 0) + 40))}`).toBeNull();
}

describe("what the model or a server sends never drives the terminal (stepwise run)", () => {
  it("a plan step's carriage return and erase-line cannot hide its first half under --approval plan", async () => {
    const home = freshHome();
    const step = "Delete every file in the workspace\r\x1b[2K  2. Summarise notes.md";
    const env = await hostileModel(turn(JSON.stringify({ steps: [step] })));
    const result = await runCli(["run", "Summarise notes.md", "-s", "plan-execute", "-m", "openai:gpt-test", "-w", workspace(home), "--approval", "plan"], { home, env });
    expect(result.code, result.stderr).toBe(exitCodeOf("awaiting-user"));
    expect(result.stdout).toContain('The planner proposes this plan for "Summarise notes.md":\n  1. Delete every file in the workspace\\r\\u001b[2K  2. Summarise notes.md\n');
    expectNoControls(result.stdout, "stdout");
    expectNoControls(result.stderr, "stderr");
  });

  it("streamed text, a 100 KB tool name, a tool result, an ask_user question and the answer are shown, bounded, not obeyed", async () => {
    const home = freshHome();
    const ws = workspace(home);
    writeFileSync(join(ws, "evil.txt"), `notes${TERMINAL_ATTACK}\x1b[2J`);
    const longName = "x".repeat(100_000);
    const env = await hostileModel(
      turn(`Working on it${TERMINAL_ATTACK}`, [{ name: longName, arguments: {} }]),
      turn(null, [{ name: "read_file", arguments: { path: "evil.txt" } }]),
      turn(null, [{ name: "ask_user", arguments: { question: `Is it fine?${TERMINAL_ATTACK}All good` } }]),
      turn("Done \x9b31m red \u202eevil\u202c"),
    );
    const result = await runCli(["run", "Tidy up", "-s", "todos", "-m", "openai:gpt-test", "-w", ws], { home, env, input: "yes\n" });
    expect(result.code, result.stderr).toBe(0);
    expectNoControls(result.stdout, "stdout");
    expectNoControls(result.stderr, "stderr");
    expect(result.stdout).toContain(`Working on it${SHOWN_ATTACK}`);
    expect(result.stdout).toMatch(/^! x{63}… \{\} → /m);
    expect(result.stdout.length).toBeLessThan(20_000);
    expect(result.stdout).toContain(`read_file {"path":"evil.txt"} → 1 notes${SHOWN_ATTACK_ON_ONE_LINE}\\u001b[2J`);
    expect(result.stdout).toContain(`The agent asks: Is it fine?${SHOWN_ATTACK}All good\nyour answer> `);
    expect(result.stdout).toContain("Done \\u009b31m red \\u202eevil\\u202c");
  });

  it("an MCP server's name, question and tool result are shown, not obeyed", async () => {
    const home = freshHome();
    const env = await hostileModel(
      turn(null, [{ name: "evil__ask", arguments: {} }]),
      turn(null, [{ name: "evil__shout", arguments: {} }]),
      turn("ok"),
    );
    const result = await runCli(["run", "Clean up", "-s", "todos", "-m", "openai:gpt-test", "-w", workspace(home), "--mcp", `evil=${hostileServer("escapes")}`], {
      home,
      env,
      input: "/decline\n",
    });
    expect(result.code, result.stderr).toBe(0);
    expectNoControls(result.stdout, "stdout");
    expectNoControls(result.stderr, "stderr");
    expect(result.stdout).toContain(`asks: Allow the cleanup?${SHOWN_ATTACK}All fine, nothing to see`);
    expect(result.stdout).toContain(`evil__shout {} → done${SHOWN_ATTACK_ON_ONE_LINE}`);
  }, 60_000);

  it("an MCP server's error message is shown on stderr in one line, not obeyed", async () => {
    const home = freshHome();
    const result = await runCli(["run", "a task", "-m", "scripted:demo", "-w", workspace(home), "--mcp", `bad=${hostileServer("list-error")}`], { home });
    expect(result.code, result.stderr).toBe(exitCodeOf("failed"));
    expectNoControls(result.stderr, "stderr");
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toContain(`no tools today${SHOWN_ATTACK}`);
  }, 60_000);

  it("on a terminal, the live checklist shows a plan's hostile title and steps, and sends no control code but its own redraw", async () => {
    const home = freshHome();
    const env = await hostileModel(
      turn(null, [
        {
          name: "create_plan",
          arguments: {
            name: `Tidy${TERMINAL_ATTACK}`,
            description: "d",
            expected_outcome: "e",
            subtasks: [{ name: "Delete everything\n  [x] 2. Back up first\x1b[1A", description: "d", expected_outcome: "e" }],
          },
        },
      ]),
      turn("done"),
    );
    const result = await runInTerminal(["run", "Tidy up", "-s", "notebook", "-m", "openai:gpt-test", "-w", workspace(home)], { home, env });
    expect(result.code, result.output).toBe(0);
    // The live view's redraw (cursor up, erase below) is the only control sequence the terminal gets.
    const redraws = result.output.match(/\x1b\[\d+A\x1b\[J/g) ?? [];
    expect(redraws.length).toBeGreaterThan(0);
    expectNoControls(result.output.replace(/\x1b\[\d+A\x1b\[J/g, ""), "the terminal's output");
    expect(result.output).toContain(`Tidy${SHOWN_ATTACK_ON_ONE_LINE} (0/1 done)`);
    expect(result.output).toContain("[ ] 1. Delete everything [x] 2. Back up first\\u001b[1A");
  }, 60_000);
});
