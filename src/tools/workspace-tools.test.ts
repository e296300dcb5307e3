import { afterEach, describe, expect, it } from "vitest";
import { scriptedModel } from "../models/scripted.js";
import { Agent } from "../core/agent.js";
import { readOnlyWorkspaceTools, workspaceTools } from "./workspace-tools.js";
import { tempWorkspace, type TempWorkspace } from "./test-support/temp-workspace.js";

let workspace: TempWorkspace | undefined;
afterEach(() => workspace?.remove());

describe("workspaceTools", () => {
  it("gives the three reading tools marked read-only, then the two writing tools, and no shell", () => {
    const tools = workspaceTools("/tmp");
    expect(tools.map((tool) => [tool.name, tool.readOnly])).toEqual([
      ["read_file", true],
      ["list_dir", true],
      ["search", true],
      ["write_file", false],
      ["edit_file", false],
    ]);
  });

  it("leaves the writing tools out when write is false, as readOnlyWorkspaceTools does", () => {
    expect(workspaceTools("/tmp", { write: false }).map((tool) => tool.name)).toEqual(["read_file", "list_dir", "search"]);
    expect(readOnlyWorkspaceTools("/tmp").map((tool) => tool.name)).toEqual(["read_file", "list_dir", "search"]);
    expect(readOnlyWorkspaceTools("/tmp").every((tool) => tool.readOnly)).toBe(true);
  });

  it("lets an agent read a file and write a report in its workspace", async () => {
    workspace = tempWorkspace({ "data/sales.csv": "month,total\njan,10\nfeb,32\n" });
    const model = scriptedModel([
      { toolCalls: [{ name: "read_file", arguments: { path: "data/sales.csv" } }] },
      { toolCalls: [{ name: "write_file", arguments: { path: "report.md", content: "Total: 42" } }] },
      "Wrote report.md.",
    ]);
    const agent = new Agent({ model, tools: workspaceTools(workspace.root) });
    const result = await agent.run("Sum the sales into report.md");
    expect(result.text).toBe("Wrote report.md.");
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ role: "tool", content: "1\tmonth,total\n2\tjan,10\n3\tfeb,32" });
    expect(workspace.read("report.md")).toBe("Total: 42");
  });
});
