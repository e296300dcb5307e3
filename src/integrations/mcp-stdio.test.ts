import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../..", import.meta.url));
const script = fileURLToPath(new URL("./test-support/serve-note-tools-stdio.ts", import.meta.url));

describe("MCP server over stdio", () => {
  const client = new Client({ name: "test-client", version: "1.0.0" });

  beforeAll(async () => {
    await client.connect(new StdioClientTransport({ command: `${root}node_modules/.bin/tsx`, args: [script], cwd: root, stderr: "pipe" }));
  }, 30_000);

  afterAll(async () => {
    await client.close();
  });

  it("lists the tools a child process serves", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.annotations?.readOnlyHint])).toEqual([
      ["add_note", false],
      ["list_notes", true],
    ]);
  });

  it("runs calls against the child's state and returns errors as error results", async () => {
    const added = await client.callTool({ name: "add_note", arguments: { text: "over stdio" } });
    expect(added).toMatchObject({ isError: false, content: [{ type: "text", text: "Added note 1." }] });
    expect(await client.callTool({ name: "list_notes", arguments: {} })).toMatchObject({
      content: [{ type: "text", text: "1. over stdio" }],
    });
    const missing = await client.callTool({ name: "add_note", arguments: {} });
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toContain("text");
  });
});
