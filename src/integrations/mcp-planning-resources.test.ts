import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { MemoryTaskStore } from "../planning/tasks/memory-task-store.js";
import { TaskBoard } from "../planning/tasks/task-board.js";
import { startMcpHttpServer, type McpHttpServer } from "./mcp-http-server.js";

const PLAN = {
  name: "Ship the release",
  description: "Cut and publish 1.2",
  expected_outcome: "1.2 on the registry",
  subtasks: [
    { name: "Changelog", description: "Write it", expected_outcome: "CHANGELOG.md" },
    { name: "Publish", description: "npm publish", expected_outcome: "published" },
  ],
};

let server: McpHttpServer | undefined;
const clients: Client[] = [];

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await server?.close();
  server = undefined;
});

async function serve() {
  const notebook = new PlanNotebook();
  const board = new TaskBoard({ store: new MemoryTaskStore({ boardId: "release" }) });
  server = await startMcpHttpServer({ tools: [...board.tools(), ...notebook.tools()], planning: { notebook, board } });
  return { notebook, board, url: server.url };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return client;
}

function texts(result: ReadResourceResult): Record<string, string> {
  return Object.fromEntries(result.contents.map((c) => [c.mimeType ?? "", "text" in c ? c.text : ""]));
}

describe("MCP server: plans and boards as resources", () => {
  it("lists and reads the current plan, archived plans, the board and its tasks, as markdown and JSON", async () => {
    const { url } = await serve();
    const client = await connect(url);
    await client.callTool({ name: "create_plan", arguments: PLAN });
    await client.callTool({ name: "TaskCreate", arguments: { subject: "Tag the commit", description: "git tag v1.2" } });

    const listed = await client.listResources();
    const uris = listed.resources.map((r) => r.uri);
    expect(uris).toContain("stepwise://plan/current");
    expect(uris).toContain("stepwise://boards/release");
    expect(uris).toContain("stepwise://boards/release/tasks/1");
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toEqual(expect.arrayContaining(["stepwise://plans/{id}", "stepwise://boards/{board}", "stepwise://boards/{board}/tasks/{id}"]));

    const current = texts(await client.readResource({ uri: "stepwise://plan/current" }));
    expect(current["text/markdown"]).toContain("# Ship the release");
    const plan = JSON.parse(current["application/json"] ?? "{}") as { id: string; subtasks: unknown[] };
    expect(plan.subtasks).toHaveLength(2);
    expect(texts(await client.readResource({ uri: `stepwise://plans/${plan.id}` }))["text/markdown"]).toContain("Changelog");

    const task = texts(await client.readResource({ uri: "stepwise://boards/release/tasks/1" }));
    expect(task["text/markdown"]).toContain("Tag the commit");
    expect(JSON.parse(task["application/json"] ?? "{}")).toMatchObject({ id: "1", state: "pending" });
    await expect(client.readResource({ uri: "stepwise://boards/release/tasks/99" })).rejects.toThrow(/has no task 99/);
  });

  it("completes plan ids and board ids, and offers prompts that name the plan", async () => {
    const { url, notebook } = await serve();
    const client = await connect(url);
    await client.callTool({ name: "create_plan", arguments: PLAN });
    const id = notebook.currentPlan?.id ?? "";
    const completed = await client.complete({ ref: { type: "ref/resource", uri: "stepwise://plans/{id}" }, argument: { name: "id", value: id.slice(0, 3) } });
    expect(completed.completion.values).toContain(id);
    const prompt = await client.complete({ ref: { type: "ref/prompt", name: "continue_plan" }, argument: { name: "plan_id", value: "" } });
    expect(prompt.completion.values).toContain(id);

    const prompts = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(prompts).toEqual(expect.arrayContaining(["plan_task", "continue_plan", "work_board"]));
    const got = await client.getPrompt({ name: "continue_plan", arguments: {} });
    const text = got.messages[0]?.content.type === "text" ? got.messages[0].content.text : "";
    expect(text).toContain("# Ship the release");
    const planTask = await client.getPrompt({ name: "plan_task", arguments: { task: "Migrate the database" } });
    expect(JSON.stringify(planTask.messages)).toContain("Migrate the database");
  });

  it("notifies a subscribed session when its plan or task changes, and only for what it subscribed to", async () => {
    const { url } = await serve();
    const watcher = await connect(url);
    const actor = await connect(url);
    const updated: string[] = [];
    let heard: (uri: string) => void = () => {};
    watcher.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      updated.push(n.params.uri);
      heard(n.params.uri);
    });
    const next = (uri: string) => new Promise<void>((resolve) => (heard = (got) => got === uri && resolve()));

    await watcher.subscribeResource({ uri: "stepwise://plan/current" });
    let arrived = next("stepwise://plan/current");
    await actor.callTool({ name: "create_plan", arguments: PLAN });
    await arrived;

    await actor.callTool({ name: "TaskCreate", arguments: { subject: "one", description: "" } });
    await watcher.subscribeResource({ uri: "stepwise://boards/release/tasks/1" });
    arrived = next("stepwise://boards/release/tasks/1");
    await actor.callTool({ name: "TaskUpdate", arguments: { task_id: "1", status: "in_progress", owner: "actor" } });
    await arrived;
    expect(updated.every((uri) => uri === "stepwise://plan/current" || uri === "stepwise://boards/release/tasks/1")).toBe(true);

    await watcher.unsubscribeResource({ uri: "stepwise://boards/release/tasks/1" });
    const before = updated.length;
    arrived = next("stepwise://plan/current");
    await actor.callTool({ name: "TaskUpdate", arguments: { task_id: "1", status: "completed" } });
    await actor.callTool({ name: "update_subtask_state", arguments: { subtask_idx: 0, state: "in_progress" } });
    await arrived; // the plan change comes after the task change: had the task been heard, it would be in between
    expect(updated.slice(before)).toEqual(["stepwise://plan/current"]);
  });

  it("sends log messages at or above the level a client set, and progress when asked", async () => {
    const { url } = await serve();
    const client = await connect(url);
    const logs: string[] = [];
    let logged: () => void = () => {};
    const firstLog = new Promise<void>((resolve) => (logged = resolve));
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(`${n.params.level} ${String(n.params.data)}`);
      logged();
    });
    await client.setLoggingLevel("warning");
    await client.callTool({ name: "TaskList", arguments: {} });
    await client.callTool({ name: "TaskGet", arguments: { task_id: "404" } });
    // Log messages share one stream in order: had the info line been sent, it would have come first.
    await firstLog;
    expect(logs).toEqual(["warning TaskGet: error"]);

    const progress: number[] = [];
    await client.callTool({ name: "TaskList", arguments: {} }, undefined, { onprogress: (p) => void progress.push(p.progress) });
    expect(progress).toEqual([0, 1]);
  });
});
