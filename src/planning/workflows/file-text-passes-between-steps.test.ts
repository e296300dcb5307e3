// Regression: read_file's numbered lines ("1\t# Kickoff") flowed verbatim into later ReWOO and
// compiler steps, so a write_file that used the result wrote the numbers into report.md. A step's
// evidence is the file's text; the model still reads numbered lines wherever it calls read_file.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Agent, LLMCompiler, Rewoo, scriptedModel, workspaceTools, type AgentEvent } from "../../index.js";

const NOTES = "# Kickoff\nGoal: ship the report\n\tindented line\n";

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-evidence-"));
  writeFileSync(join(dir, "notes.md"), NOTES);
  return dir;
}

describe("a file read in one step reaches a later step as its text, without line numbers", () => {
  it("ReWOO: #E1 from read_file is the file's text for the write; the solver reads what read_file showed", async () => {
    const dir = workspace();
    const plan = [
      'Plan: read the notes #E1 = read_file[{"path": "notes.md"}]',
      'Plan: copy them into the report #E2 = write_file[{"path": "report.md", "content": "#E1"}]',
    ].join("\n");
    const solver = scriptedModel(["copied"]);
    const outcome = await new Rewoo({ model: scriptedModel([plan]), solverModel: solver, tools: workspaceTools(dir) }).run("Copy the notes");
    expect(outcome.trace.steps.map((s) => s.isError)).toEqual([false, false]);
    expect(readFileSync(join(dir, "report.md"), "utf8")).toBe(NOTES);
    expect(String(solver.requests[0]?.messages[0]?.content)).toContain("Evidence: 1\t# Kickoff\n2\tGoal: ship the report");
  });

  it("LLM compiler: $1 from read_file is the file's text; the joiner and the log see what read_file showed", async () => {
    const dir = workspace();
    const plan = [
      JSON.stringify({ id: 1, tool: "read_file", args: { path: "notes.md" } }),
      JSON.stringify({ id: 2, tool: "write_file", args: { path: "report.md", content: "$1" } }),
      JSON.stringify({ tool: "join" }),
    ].join("\n");
    const events: AgentEvent[] = [];
    const joiner = scriptedModel([JSON.stringify({ action: "finish", answer: "copied" })]);
    const compiler = new LLMCompiler({ model: scriptedModel([plan]), joinerModel: joiner, tools: workspaceTools(dir), onEvent: (e) => events.push(e) });
    expect((await compiler.run("Copy the notes")).text).toBe("copied");
    expect(readFileSync(join(dir, "report.md"), "utf8")).toBe(NOTES);
    const read = events.find((e): e is Extract<AgentEvent, { type: "tool-end" }> => e.type === "tool-end" && e.call.name === "read_file");
    expect(read?.result).toEqual({ text: "1\t# Kickoff\n2\tGoal: ship the report\n3\t\tindented line", isError: false });
    expect(String(joiner.requests[0]?.messages[0]?.content)).toContain("1\t# Kickoff");
  });

  it("an agent's model still reads the numbered lines", async () => {
    const dir = workspace();
    const model = scriptedModel([{ toolCalls: [{ name: "read_file", arguments: { path: "notes.md" } }] }, "read"]);
    const agent = new Agent({ model, tools: workspaceTools(dir) });
    await agent.run("Read the notes");
    expect(agent.memory.find((m) => m.role === "tool")?.content).toBe("1\t# Kickoff\n2\tGoal: ship the report\n3\t\tindented line");
  });
});
