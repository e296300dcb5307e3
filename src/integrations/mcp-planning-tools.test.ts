import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { MemoryTaskStore } from "../planning/tasks/memory-task-store.js";
import { TaskBoard } from "../planning/tasks/task-board.js";
import { startMcpHttpServer, type McpHttpServer } from "./mcp-http-server.js";

// What `stepwise mcp` will serve: one task board store and one plan notebook, shared by every client.
let server: McpHttpServer | undefined;
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await server?.close();
});

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { text?: string }[]).map((part) => part.text ?? "").join("");
  return { text, isError: result.isError === true };
}

describe("the planning tools served over MCP", () => {
  it("lets two clients share one task board, each acting under its own name", async () => {
    const store = new MemoryTaskStore();
    let sessions = 0;
    server = await startMcpHttpServer({
      toolsFactory: () => new TaskBoard({ store, agentName: `worker-${++sessions}` }).tools(),
    });
    const first = await connect(server.url);
    const second = await connect(server.url);

    const created = await call(first, "TaskCreate", { subject: "Write the report", description: "Summarise the findings." });
    expect(created).toEqual({ text: expect.stringContaining("Write the report"), isError: false });
    const started = await call(second, "TaskUpdate", { task_id: "1", status: "in_progress" });
    expect(started.isError).toBe(false);
    expect((await store.list())[0]).toMatchObject({ state: "in_progress", owner: "worker-2" });
    expect((await call(first, "TaskGet", { task_id: "1" })).text).toContain("worker-2");

    const missing = await call(first, "TaskGet", { task_id: "9" });
    expect(missing).toEqual({ text: expect.stringContaining("does not exist"), isError: true });
  });

  it("lets two clients work on one plan notebook", async () => {
    const notebook = new PlanNotebook();
    server = await startMcpHttpServer({ tools: notebook.tools() });
    const planner = await connect(server.url);
    const worker = await connect(server.url);

    const subtasks = [
      { name: "Read the logs", description: "Collect the errors.", expected_outcome: "A list of errors." },
      { name: "Write the summary", description: "Group the errors.", expected_outcome: "A short summary." },
    ];
    const plan = { name: "Triage", description: "Triage last night's failures.", expected_outcome: "A summary.", subtasks };
    expect((await call(planner, "create_plan", plan)).isError).toBe(false);
    expect((await call(worker, "finish_subtask", { subtask_idx: 0, subtask_outcome: "Three errors." })).isError).toBe(false);
    expect(notebook.currentPlan?.subtasks[0]?.state).toBe("done");
    expect((await call(planner, "view_subtasks", { subtask_idx: [0] })).text).toContain("Three errors.");
  });
});
