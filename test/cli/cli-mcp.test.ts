import { spawn } from "node:child_process";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { CLI, freshHome, runCli } from "./cli-harness.js";

type ToolText = { content: { type: string; text?: string }[]; isError?: boolean };
const textOf = (result: unknown) => (result as ToolText).content.map((c) => c.text ?? "").join("");

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function connect(transport: StdioClientTransport | StreamableHTTPClientTransport, name: string): Promise<Client> {
  const client = new Client({ name, version: "1.0.0" });
  await client.connect(transport);
  cleanups.push(() => client.close());
  return client;
}

describe("stepwise mcp", () => {
  it("serves the board and notebook tools over stdio to the official client", async () => {
    const home = freshHome();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], env: { STEPWISE_HOME: home, PATH: process.env["PATH"] ?? "" } });
    const client = await connect(transport, "editor");
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["TaskCreate", "TaskGet", "TaskList", "TaskUpdate", "create_plan", "finish_subtask"]));
    expect(tools.find((t) => t.name === "TaskList")?.annotations?.readOnlyHint).toBe(true);

    expect(textOf(await client.callTool({ name: "TaskCreate", arguments: { subject: "Ship it", description: "all of it" } }))).toContain("#1");
    const bad = await client.callTool({ name: "TaskUpdate", arguments: { task_id: "1", add_blocked_by: ["1"] } });
    expect((bad as ToolText).isError).toBe(true);
    expect(textOf(await client.callTool({ name: "TaskList", arguments: {} }))).toContain("#1 [pending] Ship it");
  });

  it("keeps plans made over MCP where stepwise plans list finds them", async () => {
    const home = freshHome();
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, "mcp"], env: { STEPWISE_HOME: home, PATH: process.env["PATH"] ?? "" } });
    const client = await connect(transport, "editor");
    const sub = { name: "Draft", description: "d", expected_outcome: "o" };
    const created = await client.callTool({ name: "create_plan", arguments: { name: "Plan from MCP", description: "d", expected_outcome: "o", subtasks: [sub] } });
    expect((created as ToolText).isError).toBeFalsy();
    const list = await runCli(["plans", "list"], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^\S{36} {2}todo {8}0\/1 {2}Plan from MCP {2}\(mcp:mcp, /m);
  });

  it("shares one board between HTTP clients and refuses a request without the token", async () => {
    const home = freshHome();
    const server = spawn(process.execPath, [CLI, "mcp", "--http", "--token", "s3cret"], {
      env: { STEPWISE_HOME: home, PATH: process.env["PATH"] ?? "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    cleanups.push(async () => {
      server.kill("SIGTERM");
      await new Promise((resolve) => server.once("close", resolve));
    });
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      server.stderr.on("data", (chunk: Buffer) => {
        text += chunk.toString();
        const match = /MCP server on (\S+)/.exec(text);
        if (match?.[1]) resolve(match[1]);
      });
      server.once("close", () => reject(new Error(`server exited: ${text}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);

    const refused = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(refused.status).toBe(401);

    const auth = { requestInit: { headers: { Authorization: "Bearer s3cret" } } };
    const alice = await connect(new StreamableHTTPClientTransport(new URL(url), auth), "alice");
    const bob = await connect(new StreamableHTTPClientTransport(new URL(url), auth), "bob");
    await alice.callTool({ name: "TaskCreate", arguments: { subject: "From Alice", description: "shared" } });
    await bob.callTool({ name: "TaskUpdate", arguments: { task_id: "1", status: "in_progress", owner: "bob" } });
    expect(textOf(await alice.callTool({ name: "TaskList", arguments: {} }))).toContain("#1 [in_progress] From Alice (owner: bob)");
  });

  it("refuses to listen beyond loopback without a token, in one line, exit 2 as for any bad setting", async () => {
    const home = freshHome();
    const child = spawn(process.execPath, [CLI, "mcp", "--http", "--host", "0.0.0.0"], {
      env: { STEPWISE_HOME: home, PATH: process.env["PATH"] ?? "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.once("close", resolve));
    expect(code).toBe(2);
    expect(stderr.trim().split("\n")).toHaveLength(1);
    expect(stderr).toMatch(/^stepwise: Refusing to serve MCP on 0\.0\.0\.0 without a token/);
  });
});
