import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, describe, expect, it } from "vitest";
import { TaskBoard } from "../planning/tasks/task-board.js";
import { PostgresTaskStore } from "../stores/postgres-task-store.js";
import { freshSchema } from "../stores/test-support/fresh-schema.js";
import { uniqueBoardId } from "../stores/test-support/shared-board-workload.js";
import { startMcpHttpServer, type McpHttpServer } from "./mcp-http-server.js";

const DIST_POSTGRES = fileURLToPath(new URL("../../dist/stores/postgres.js", import.meta.url));
const run = promisify(execFile);

// A schema of its own, so that the task tables (and their migrations) never meet another run's.
const schema = await freshSchema();
const TEST_DATABASE_URL = schema.url;
let server: McpHttpServer | undefined;
let client: Client | undefined;
afterAll(async () => {
  await client?.close();
  await server?.close();
  await schema.drop();
});

describe("MCP board subscriptions on PostgreSQL", () => {
  it("tells a subscribed client when another process claims one of the board's tasks", async () => {
    const boardId = uniqueBoardId("mcp-sub");
    const store = new PostgresTaskStore({ boardId, connectionString: TEST_DATABASE_URL });
    const board = new TaskBoard({ store });
    await store.create({ subject: "Rotate the keys", description: "" });
    server = await startMcpHttpServer({ tools: board.tools(), planning: { board } });

    client = new Client({ name: "watcher", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    const taskUri = `stepwise://boards/${boardId}/tasks/1`;
    const heard = new Promise<string>((resolve) => client?.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri)));
    await client.subscribeResource({ uri: taskUri });

    // Another process, with its own connection and no MCP at all, claims the task.
    const claim = `
      const { PostgresTaskStore } = await import(${JSON.stringify(DIST_POSTGRES)});
      const store = new PostgresTaskStore({ boardId: ${JSON.stringify(boardId)}, connectionString: ${JSON.stringify(TEST_DATABASE_URL)} });
      const { task } = await store.claimNext("other-process");
      await store.close();
      console.log(task.id);`;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", claim]);
    expect(stdout.trim()).toBe("1");

    expect(await heard).toBe(taskUri);
    const read = await client.readResource({ uri: taskUri });
    const json = read.contents.find((c) => c.mimeType === "application/json");
    expect(JSON.parse(json && "text" in json ? json.text : "{}")).toMatchObject({ state: "in_progress", owner: "other-process" });
  });
});
