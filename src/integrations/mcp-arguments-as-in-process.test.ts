import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterEach, describe, expect, it } from "vitest";
import { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import { createMcpServer } from "./mcp-server.js";

// A call over MCP gets what the same call gets in-process: Stepwise's argument repairs, and its
// errors naming the argument, rather than the SDK's own validation in front of them.
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0)) await close();
});

async function served(notebook: PlanNotebook): Promise<Client> {
  const server = createMcpServer(notebook.tools());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(clientSide);
  closing.push(() => client.close(), () => server.close());
  return client;
}

const text = (result: Awaited<ReturnType<Client["callTool"]>>) => (result.content as { text?: string }[]).map((part) => part.text ?? "").join("");

const SUBTASKS = [{ name: "Gather", description: "Read the notes", expected_outcome: "facts" }];
const PLAN = { name: "Report", description: "Write the report", expected_outcome: "report.md exists" };

describe("MCP tool calls go through Stepwise's argument handling", () => {
  it("accepts subtasks sent as a JSON string, as an in-process call does", async () => {
    const inProcess = new PlanNotebook();
    const create = inProcess.tools().find((tool) => tool.name === "create_plan")!;
    const local = await create.invoke({ ...PLAN, subtasks: JSON.stringify(SUBTASKS) });
    expect(local.isError).toBe(false);

    const notebook = new PlanNotebook();
    const client = await served(notebook);
    const result = await client.callTool({ name: "create_plan", arguments: { ...PLAN, subtasks: JSON.stringify(SUBTASKS) } });
    expect(result.isError, text(result)).toBeFalsy();
    expect(notebook.currentPlan?.subtasks.map((subtask) => subtask.name)).toEqual(["Gather"]);
  });

  it("answers a wrong argument with the error an in-process call gets, naming the argument", async () => {
    const create = new PlanNotebook().tools().find((tool) => tool.name === "finish_subtask")!;
    const local = await create.invoke({ subtask_idx: "first" });
    const client = await served(new PlanNotebook());
    const result = await client.callTool({ name: "finish_subtask", arguments: { subtask_idx: "first" } });
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(local.text);
    expect(text(result)).toContain("subtask_idx");
  });

  it("still lists each tool's own JSON Schema", async () => {
    const notebook = new PlanNotebook();
    const client = await served(notebook);
    const { tools } = await client.listTools();
    const listed = tools.find((tool) => tool.name === "create_plan")!.inputSchema;
    const { $schema: _dialect, ...own } = notebook.tools().find((tool) => tool.name === "create_plan")!.parameters as Record<string, unknown>;
    expect(listed).toMatchObject(own);
  });
});
