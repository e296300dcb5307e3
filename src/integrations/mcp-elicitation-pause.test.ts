import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { Agent } from "../core/agent.js";
import type { ApprovalDecision } from "../core/approval.js";
import type { AgentState } from "../core/state.js";
import type { Message } from "../core/messages.js";
import type { ModelRequest } from "../core/model.js";
import { reactiveModel, scriptedModel, type ScriptedTurn } from "../models/scripted.js";
import { openRuns } from "../runs/runs.js";
import type { ModelRole } from "../runs/strategies.js";
import { mcpTools, type McpTools } from "./mcp-tools.js";
import { startElicitingMcpServer } from "./test-support/eliciting-mcp-server.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function elicitingServer() {
  const server = await startElicitingMcpServer();
  cleanups.push(() => server.stop());
  return server;
}

async function connect(url: string): Promise<McpTools> {
  const mcp = await mcpTools({ url }, { prefix: "rooms_" });
  cleanups.push(() => mcp.close());
  return mcp;
}

const bookTurn = { toolCalls: [{ name: "rooms_book_room", arguments: {}, id: "c1" }] };

/** Runs the agent until it pauses on the server's question, and returns its saved state. */
async function pausedOnQuestion(url: string): Promise<AgentState> {
  const agent = new Agent({ model: scriptedModel([bookTurn]), plugins: [await connect(url)] });
  const paused = await agent.run("book a room");
  expect(paused.stopReason).toBe("awaiting-user");
  expect(paused.pending).toHaveLength(1);
  const [call] = paused.pending!;
  expect(call).toMatchObject({ id: "c1-q1", name: "ask_user", kind: "question" });
  const { question } = JSON.parse(call!.arguments) as { question: string };
  expect(question).toContain('MCP server "eliciting-server" asks: Which room?');
  expect(question).toMatch(/seats \(whole number, optional, default 6\)/);
  return agent.saveState();
}

/** Resumes in a new agent on a new connection, as another process would, and returns the call's result. */
async function resumedWith(url: string, state: AgentState, decision: ApprovalDecision) {
  const model = scriptedModel(["done"]);
  const agent = new Agent({ model, plugins: [await connect(url)] });
  const result = await agent.resume(structuredClone(state), { "c1-q1": decision });
  const toolResult = agent.memory.find((m) => m.role === "tool" && m.toolCallId === "c1");
  return { result, agent, content: toolResult?.content ?? "" };
}

describe("an MCP server's question pauses the agent", () => {
  it("pauses with the server's message; the answer, defaults filled, completes the call in a new agent", async () => {
    const server = await elicitingServer();
    const { result, content } = await resumedWith(server.url, await pausedOnQuestion(server.url), { action: "answer", text: '{"seats": 12}' });
    expect(result.stopReason).toBe("final");
    expect(JSON.parse(content)).toEqual({ action: "accept", content: { room: "Lovelace", seats: 12, projector: true } });
  });

  it("an empty answer accepts every default", async () => {
    const server = await elicitingServer();
    const { content } = await resumedWith(server.url, await pausedOnQuestion(server.url), { action: "answer", text: "" });
    expect(JSON.parse(content)).toEqual({ action: "accept", content: { room: "Lovelace", seats: 6, projector: true } });
  });

  it("a rejection declines, and the tool's result says so", async () => {
    const server = await elicitingServer();
    const { content } = await resumedWith(server.url, await pausedOnQuestion(server.url), { action: "reject", reason: "not now" });
    expect(JSON.parse(content)).toEqual({ action: "decline" });
  });

  it("an answer that does not fit the form asks again, saying what was wrong", async () => {
    const server = await elicitingServer();
    const { result, agent } = await resumedWith(server.url, await pausedOnQuestion(server.url), { action: "answer", text: '{"seats": "many"}' });
    expect(result.stopReason).toBe("awaiting-user");
    const { question } = JSON.parse(result.pending![0]!.arguments) as { question: string };
    expect(question).toMatch(/^Your last answer could not be used: seats: expected a number, got "many"\.\n.*Which room\?/);

    expect(result.pending![0]!.id).toBe("c1-q2");
    await agent.resume(null, { "c1-q2": { action: "answer", text: '{"room": "Turing", "projector": "no"}' } });
    const toolResult = agent.memory.find((m) => m.role === "tool" && m.toolCallId === "c1");
    const accepted = { action: "accept", content: { room: "Turing", seats: 6, projector: false } };
    expect(JSON.parse(toolResult!.content)).toEqual(accepted);
    // The server never saw the bad answer: every question before the last was dismissed while the run paused.
    expect(server.answers.filter((answer) => (answer as { action: string }).action !== "cancel")).toEqual([accepted]);
  });

  it("works through openRuns: the paused run is resumed by id from another Runs", async () => {
    const server = await elicitingServer();
    const dir = mkdtempSync(join(tmpdir(), "stepwise-mcp-runs-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, "stepwise.db");
    const model = scriptedModel([bookTurn, "booked"]);
    const first = openRuns({ store: file, models: () => () => model });
    cleanups.push(() => first.close());
    const tools = (await connect(server.url)).tools();
    const run = await first.start({ task: "book a room", strategy: "todos", model: "scripted", tools, settings: { workspace: dir } });
    const paused = await run.done;
    expect(paused).toMatchObject({ status: "awaiting-user", pending: [{ id: "c1-q1", kind: "question" }] });
    await first.close();

    const later = (await connect(server.url)).tools();
    const second = openRuns({ store: file, models: () => () => model, tools: () => later });
    cleanups.push(() => second.close());
    const resumed = await second.resume(run.id, { "c1-q1": { action: "answer", text: '{"room": "Hopper"}' } });
    expect(await resumed.done).toMatchObject({ status: "final", text: "booked" });
    expect(server.answers.at(-1)).toEqual({ action: "accept", content: { room: "Hopper", seats: 6, projector: true } });
  });

  it("a question while other calls run waits for them, then pauses the one call that asked", async () => {
    const server = await elicitingServer();
    const turn = { toolCalls: [{ name: "rooms_list_rooms", arguments: {}, id: "l1" }, ...bookTurn.toolCalls] };
    const agent = new Agent({ model: scriptedModel([turn, "done"]), plugins: [await connect(server.url)] });
    const paused = await agent.run("book a room");
    expect(paused.pending?.map((call) => call.id)).toEqual(["c1-q1"]);
    await agent.resume(null, { "c1-q1": { action: "answer", text: "" } });
    const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results[0]).toBe("Lovelace, Turing, Hopper");
    expect(JSON.parse(results[1]!)).toMatchObject({ action: "accept" });
  });

  it("questions from several calls at once cannot be told apart: each call ends with an error, none pauses", async () => {
    const server = await elicitingServer();
    const turn = { toolCalls: [{ name: "rooms_book_room", arguments: {}, id: "a" }, { name: "rooms_book_room", arguments: {}, id: "b" }] };
    const agent = new Agent({ model: scriptedModel([turn, "done"]), plugins: [await connect(server.url)] });
    const result = await agent.run("book two rooms");
    expect(result.stopReason).toBe("final");
    const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toHaveLength(2);
    for (const text of results) expect(text).toMatch(/several of its tools were running at once.*one at a time/);
  });
});

const seen = (messages: readonly Message[]) => messages.map((m) => m.content).join("\n");
/** What the booking answered, as far as the request shows it: the result the last model was told. */
const booked = (req: ModelRequest) => /action\W+(\w+)\W+content\W+room\W+(\w+)/.exec(seen(req.messages))?.slice(1).join(" ") ?? seen(req.messages).slice(-300);
/** A step's agent: books the room, then reports what the call answered. */
const stepAgent = () =>
  reactiveModel((req): ScriptedTurn =>
    req.messages.at(-1)?.role === "tool" ? `step saw: ${req.messages.at(-1)?.content}` : { toolCalls: [{ name: "rooms_book_room", arguments: {} }] },
  );

/** The models of a workflow whose one step books a room. */
function workflowModels(strategy: "plan-tool" | "plan-execute" | "rewoo"): (role: ModelRole) => ReturnType<typeof reactiveModel> {
  const roles: Partial<Record<ModelRole, ReturnType<typeof reactiveModel>>> =
    strategy === "plan-tool"
      ? {
          agent: reactiveModel((req): ScriptedTurn => (req.messages.at(-1)?.role === "tool" ? `final: ${booked(req)}` : { toolCalls: [{ name: "plan", arguments: { task: "Book a room" } }] })),
          planner: reactiveModel(() => '{"subtasks": ["Book the room"]}'),
          executor: stepAgent(),
        }
      : strategy === "plan-execute"
        ? {
            // The planner's request starts with its system prompt; the replanner answers once the step is done.
            planner: reactiveModel((req) => (req.messages[0]?.role === "system" ? '{"steps": ["Book the room"]}' : JSON.stringify({ answer: `final: ${booked(req)}` }))),
            executor: stepAgent(),
          }
        : {
            planner: reactiveModel(() => JSON.stringify({ steps: [{ plan: "book", tool: "rooms_book_room", input: {} }] })),
            solver: reactiveModel((req) => `final: ${seen(req.messages).includes("which a workflow step cannot do") ? "step could not wait" : booked(req)}`),
          };
  return (role) => roles[role] ?? reactiveModel(() => `no model for ${role}`);
}

describe("an MCP server's question inside a workflow step", () => {
  async function runsOn(url: string, dir: string, strategy: "plan-tool" | "plan-execute" | "rewoo") {
    const tools = (await connect(url)).tools();
    const runs = openRuns({ store: join(dir, "stepwise.db"), models: () => workflowModels(strategy), tools: () => tools });
    cleanups.push(() => runs.close());
    return runs;
  }

  it.each(["plan-tool", "plan-execute"] as const)("%s: pauses the whole run on it; the answer, given through another Runs, completes the step", async (strategy) => {
    const server = await elicitingServer();
    const dir = mkdtempSync(join(tmpdir(), "stepwise-mcp-workflow-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const first = await runsOn(server.url, dir, strategy);
    const run = await first.start({ task: "Book a room", strategy, model: "scripted", settings: { workspace: dir } });
    const paused = await run.done;
    expect(paused).toMatchObject({ status: "awaiting-user", pending: [{ name: "ask_user", kind: "question" }] });
    expect(JSON.parse(paused.pending![0]!.arguments).question).toContain("Which room?");
    await first.close();

    const second = await runsOn(server.url, dir, strategy);
    const resumed = await second.resume(run.id, { [paused.pending![0]!.id]: { action: "answer", text: '{"room": "Hopper"}' } });
    expect(await resumed.done).toMatchObject({ status: "final", text: "final: accept Hopper" });
    expect(server.answers.at(-1)).toEqual({ action: "accept", content: { room: "Hopper", seats: 6, projector: true } });
  });

  it("rewoo: a step's call cannot wait mid-call, so it ends with an error saying so and the run finishes", async () => {
    const server = await elicitingServer();
    const dir = mkdtempSync(join(tmpdir(), "stepwise-mcp-workflow-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const runs = await runsOn(server.url, dir, "rewoo");
    const run = await runs.start({ task: "Book a room", strategy: "rewoo", model: "scripted", settings: { workspace: dir } });
    expect(await run.done).toMatchObject({ status: "final", text: "final: step could not wait" });
  });
});
