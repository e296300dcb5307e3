import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/run-endings.js";
import { cliMcpConnections, cliTools } from "../../src/cli/run-command.js";
import { scriptedModel } from "../../src/models/scripted.js";
import { openRuns } from "../../src/runs/runs.js";
import { inTurn, startTestServer, type Handler, type TestServer } from "../../src/models/test-support/http-server.js";
import { assistantTurn } from "../../src/models/test-support/streamed-replies.js";
import { cliTestTimeout, freshHome, runCli, tsxCommandLine, workspace } from "./cli-harness.js";

/** The eliciting test server over stdio, as a command line for --mcp. */
const STDIO_SERVER = tsxCommandLine("src/integrations/test-support/serve-eliciting-stdio.ts");
const bookRoom = assistantTurn({ calls: [{ name: "rooms__book_room", arguments: "{}" }] });

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function modelServer(...turns: Handler[]): Promise<{ env: NodeJS.ProcessEnv; server: TestServer }> {
  const server = await startTestServer(inTurn(...turns));
  servers.push(server);
  return { server, env: { OPENAI_API_KEY: "sk-none", OPENAI_BASE_URL: `${server.url}/v1` } };
}

/** What the model was told the call returned, in its request after the call. */
function bookingResult(server: TestServer): unknown {
  const messages: { role: string; tool_call_id?: string; content: string }[] = server.requests.at(-1)?.body.messages ?? [];
  const result = messages.find((m) => m.role === "tool" && m.tool_call_id === "c1");
  return result ? JSON.parse(result.content) : undefined;
}

describe("stepwise run --mcp", () => {
  it("gives the agent a stdio server's tools; the server's question is asked at the terminal and answered", async () => {
    const home = freshHome();
    const { env, server } = await modelServer(bookRoom, assistantTurn("booked"));
    const result = await runCli(["run", "book a room", "--strategy", "todos", "--model", "openai:gpt-test", "--workspace", workspace(home), "--mcp", `rooms=${STDIO_SERVER}`], {
      home,
      env,
      input: '{"seats": 3}\n',
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('MCP server "eliciting-server" asks: Which room?');
    expect(result.stdout).toContain("your answer (or /decline) >");
    expect(result.stdout).toContain("booked");
    expect(bookingResult(server)).toEqual({ action: "accept", content: { room: "Lovelace", seats: 3, projector: true } });
    // The server's tools sit beside Stepwise's own under the server's name.
    const offered: string[] = server.requests[0]?.body.tools.map((t: { function: { name: string } }) => t.function.name) ?? [];
    expect(offered).toEqual(expect.arrayContaining(["rooms__book_room", "rooms__list_rooms", "write_todos", "read_file"]));
  });

  it("keeps the servers with the run: --resume in another process reconnects, and /decline declines", async () => {
    const home = freshHome();
    const { env, server } = await modelServer(bookRoom, assistantTurn("no room then"));
    const args = ["run", "book a room", "--strategy", "todos", "--model", "openai:gpt-test", "--workspace", workspace(home), "--mcp", `rooms=${STDIO_SERVER}`];
    const paused = await runCli(args, { home, env });
    expect(paused.code, paused.stderr).toBe(exitCodeOf("awaiting-user"));
    expect(paused.stdout).toContain("Which room?");

    const resumed = await runCli(["run", "--resume"], { home, env, input: "/decline\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("no room then");
    expect(bookingResult(server)).toEqual({ action: "decline" });
  }, cliTestTimeout(2));

  it("a paused run's servers are reconnected where the viewer or a worker resumes it", async () => {
    const home = freshHome();
    const { env } = await modelServer(bookRoom);
    const args = ["run", "book a room", "--strategy", "todos", "--model", "openai:gpt-test", "--workspace", workspace(home), "--mcp", `rooms=${STDIO_SERVER}`];
    const paused = await runCli(args, { home, env });
    expect(paused.code, paused.stderr).toBe(exitCodeOf("awaiting-user"));

    // What `stepwise ui` and `stepwise worker` open: the CLI's tools, MCP servers included.
    const database = join(home, "stepwise.db");
    const mcp = cliMcpConnections(database, { stdout: process.stdout, stderr: process.stderr });
    const runs = openRuns({ store: database, models: () => () => scriptedModel(["booked"]), tools: cliTools(database, mcp) });
    try {
      const [run] = await runs.list(1);
      const resumed = await runs.resume(run!.id, { "c1-q1": { action: "answer", text: `{"room": "Hopper"}` } });
      expect(await resumed.done).toMatchObject({ status: "final", text: "booked" });
      const events = [];
      for await (const { event } of runs.events(run!.id)) if (event.type === "tool-end") events.push(event);
      expect(JSON.parse(events.at(-1)!.result.text)).toEqual({ action: "accept", content: { room: "Hopper", seats: 6, projector: true } });
    } finally {
      await runs.close();
      await mcp.close();
    }
  });

  it("takes the servers of an mcpServers config file", async () => {
    const home = freshHome();
    const [command, script] = STDIO_SERVER.split(" ").map((word) => word.slice(1, -1)) as [string, string];
    const config = join(home, "mcp.json");
    writeFileSync(config, JSON.stringify({ mcpServers: { rooms: { command, args: [script] } } }));
    const { env, server } = await modelServer(bookRoom, assistantTurn("booked"));
    const result = await runCli(["run", "book a room", "--strategy", "todos", "--model", "openai:gpt-test", "--workspace", workspace(home), "--mcp-config", config], {
      home,
      env,
      input: "\n",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(bookingResult(server)).toEqual({ action: "accept", content: { room: "Lovelace", seats: 6, projector: true } });
  });

  it("refuses a bad --mcp or --mcp-config with one readable line and exit code 2, before anything runs", async () => {
    for (const bad of [["--mcp", "no-equals-sign"], ["--mcp", "x=ftp://host/mcp"], ["--mcp", 'x="unclosed'], ["--mcp-config", "/no/such/file.json"]]) {
      const result = await runCli(["run", "a task", "--model", "scripted:demo", ...bad]);
      expect(result.code, bad.join(" ")).toBe(exitCodeOf("usage"));
      expect(result.stderr.trim().split("\n"), result.stderr).toHaveLength(1);
      expect(result.stderr).toMatch(/^stepwise: .*(--mcp|MCP server)/);
    }
  });

  it("fails in one line when a server cannot be started", async () => {
    const result = await runCli(["run", "a task", "--model", "scripted:demo", "--mcp", "gone=/no/such/command"]);
    expect(result.code).toBe(exitCodeOf("failed"));
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^stepwise: MCP server gone: Could not connect/);
  });
});
