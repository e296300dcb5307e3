import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { AgentEvent } from "../../core/events.js";
import type { Message } from "../../core/messages.js";
import { estimateMessageTokens, estimateTokens } from "../../core/tokens.js";
import { scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { contextFolding, type ContextFoldingOptions } from "./context-folding.js";
import { isValidToolSequence, readFile, unitTurns, workUnits } from "./test-support/work-units.js";

type Folded = Extract<AgentEvent, { type: "context-folded" }>;

async function run(turns: ScriptedTurn[], opts: { folding?: ContextFoldingOptions; recite?: boolean; input?: string; system?: string } = {}) {
  const model = scriptedModel(turns);
  const units = workUnits({ recite: opts.recite ?? true });
  const folding = opts.folding ? contextFolding(opts.folding) : undefined;
  const plugins = folding ? [units, folding] : [units];
  const agent = new Agent({ model, tools: [readFile], plugins, maxSteps: 500, ...(opts.system ? { systemPrompt: opts.system } : {}) });
  const events: AgentEvent[] = [];
  agent.on((event) => events.push(event));
  const result = await agent.run(opts.input ?? "Build the thing.");
  const folds = events.filter((e): e is Folded => e.type === "context-folded");
  return { model, agent, units, folding, events, folds, result };
}

const userMessages = (messages: readonly Message[]) => messages.filter((m) => m.role === "user").map((m) => m.content);

describe("contextFolding", () => {
  it("folds at the budget and not before: the first fold comes right before the first request past it", async () => {
    const budgetTokens = 4000;
    const unfolded = await run(unitTurns(6, 5), { recite: false });
    const folded = await run(unitTurns(6, 5), { recite: false, folding: { budgetTokens } });
    // A request's size, as folding counts it: its messages and the tools it carries (recall's too).
    const tools = estimateTokens(JSON.stringify(folded.model.requests[0]?.tools));
    const sizes = unfolded.model.requests.map((req) => estimateMessageTokens(req.messages) + tools);
    const firstOver = sizes.findIndex((size) => size > budgetTokens);
    expect(firstOver).toBeGreaterThan(0);

    const firstFold = folded.events.findIndex((e) => e.type === "context-folded");
    const startsBefore = folded.events.slice(0, firstFold).filter((e) => e.type === "model-start").length;
    expect(startsBefore).toBe(firstOver);
    const messagesOf = (requests: { messages: Message[] }[]) => requests.slice(0, firstOver).map((req) => req.messages);
    expect(messagesOf(folded.model.requests)).toEqual(messagesOf(unfolded.model.requests));
    // One batch goes down to the low-water mark (half the budget by default), so folds stay rare.
    const first = folded.folds[0] as Folded;
    expect(first.tokensBefore).toBeGreaterThan(budgetTokens);
    expect(first.tokensAfter).toBeLessThanOrEqual(budgetTokens / 2);
    expect(first.tokensSaved).toBe(first.tokensBefore - first.tokensAfter);
    for (const req of folded.model.requests) expect(estimateMessageTokens(req.messages)).toBeLessThanOrEqual(budgetTokens + 400);
    expect(folded.folds.length).toBeLessThan(6);
    expect(folded.folding?.stats.prefixBreaks).toBe(folded.folds.length);
    expect(folded.folds.at(-1)?.prefixBreaks).toBe(folded.folds.length);
  });

  it("never folds below the budget, however many units finish", async () => {
    const { folds, model } = await run(unitTurns(6, 5), { folding: { budgetTokens: 1_000_000 } });
    expect(folds).toEqual([]);
    expect(model.requests.at(-1)?.messages.some((m) => m.content.includes("<folded-work"))).toBe(false);
  });

  it("folds finished units oldest first into one record each, naming the unit, its outcome and its files", async () => {
    const { folds, agent } = await run(unitTurns(6, 5), { folding: { budgetTokens: 4000 } });
    const foldedIds = folds.flatMap((f) => f.units.map((u) => u.unit.id));
    expect(foldedIds).toEqual([...foldedIds].sort());
    expect(foldedIds[0]).toBe("1");
    const record = agent.memory.find((m) => m.role === "assistant" && m.content.includes('unit="unit:1"'));
    expect(record?.content).toContain("unit 1 works");
    expect(record?.content).toContain("src/u1/f0.ts");
    expect(record?.content).toContain("src/u1/f3.ts");
    expect(record?.content).toContain('recall with unit "unit:1"');
    expect(agent.memory.some((m) => m.role === "tool" && m.content.includes("src/u1/f2.ts"))).toBe(false);
  });

  it("never folds the system prompt, the live unit's work or the user's messages", async () => {
    // Unit 1 finishes; unit 2 stays in progress and pushes the request past the budget.
    const turns: ScriptedTurn[] = [
      ...unitTurns(1, 4).slice(0, -1),
      { toolCalls: [{ name: "start_unit", arguments: { id: "2" } }] },
      ...Array.from({ length: 8 }, (_, i) => ({ toolCalls: [{ name: "read_file", arguments: { path: `src/live/f${i}.ts` } }] })),
      "Paused.",
    ];
    const input = "Do unit 1, then unit 2.";
    const { agent, folds, model } = await run(turns, { folding: { budgetTokens: 2500 }, input, system: "Work in units." });
    expect(folds.flatMap((f) => f.units.map((u) => u.unit.id))).toEqual(["1"]);
    expect(folds.flatMap((f) => f.stubbed)).toEqual([]);
    for (let i = 0; i < 8; i++) {
      expect(agent.memory.some((m) => m.role === "tool" && m.content.startsWith(`// src/live/f${i}.ts`))).toBe(true);
    }
    expect(userMessages(agent.memory)).toEqual(["Do unit 1, then unit 2."]);
    for (const req of model.requests) {
      expect(req.messages.slice(0, 2)).toEqual([
        { role: "system", content: "Work in units." },
        { role: "user", content: input },
      ]);
    }
  });

  it("keeps the plan recitation at the tail of every request and out of memory", async () => {
    const { model, agent, folds } = await run(unitTurns(6, 5), { folding: { budgetTokens: 4000 } });
    expect(folds.length).toBeGreaterThan(0);
    for (const req of model.requests.slice(1)) expect(req.messages.at(-1)?.content).toMatch(/^<plan>/);
    const last = model.requests.at(-1)?.messages.at(-1)?.content;
    expect(last).toContain("unit 6: done (unit 6 works)");
    expect(agent.memory.some((m) => m.content.startsWith("<plan>"))).toBe(false);
  });

  it("leaves every request a valid tool-call sequence", async () => {
    const { model, folds } = await run(unitTurns(8, 6), { folding: { budgetTokens: 3000 } });
    expect(folds.length).toBeGreaterThan(1);
    for (const req of model.requests) expect(isValidToolSequence(req.messages)).toBe(true);
  });

  it("recall returns a folded unit's original messages exactly", async () => {
    const turns = [...unitTurns(4, 5).slice(0, -1), { toolCalls: [{ name: "recall", arguments: { unit: "unit:1" } }] }, "done"];
    const unfolded = await run(turns.slice(0, -2).concat("done"));
    // Unit 1's turns: start + first read (3 messages), three reads (6), finish (2).
    const originals = unfolded.agent.memory.slice(1, 12);
    expect(originals.at(-1)).toMatchObject({ role: "tool", content: "Unit 1 finished." });

    const { agent, folds } = await run(turns, { folding: { budgetTokens: 3000 } });
    expect(folds[0]?.units[0]?.unit.id).toBe("1");
    const result = agent.memory.at(-2);
    expect(result).toMatchObject({ role: "tool", name: "recall" });
    const recalled = JSON.parse(result?.content ?? "") as { outcome: string; messages: Message[] };
    expect(recalled.outcome).toBe("unit 1 works");
    expect(recalled.messages).toEqual(originals);
  });

  it("recall answers an unknown reference with an error that lists what can be recalled", async () => {
    const turns = [...unitTurns(4, 5).slice(0, -1), { toolCalls: [{ name: "recall", arguments: { unit: "unit:9" } }] }, "done"];
    const { events } = await run(turns, { folding: { budgetTokens: 3000 } });
    const end = events.find((e) => e.type === "tool-end" && e.call.name === "recall");
    expect(end).toMatchObject({ result: { isError: true } });
    expect(end?.type === "tool-end" && end.result.text).toContain("unit:1");
  });

  it("round-trips its state: folded units stay recallable and the ledger keeps folding after a load", async () => {
    const first = await run(unitTurns(4, 5), { folding: { budgetTokens: 3000 } });
    const saved = first.agent.saveState();
    expect(first.folding?.stats.unitsFolded).toBeGreaterThan(0);

    const folding = contextFolding({ budgetTokens: 3000 });
    const units = workUnits();
    const second: ScriptedTurn[] = [
      { toolCalls: [{ name: "recall", arguments: { unit: "unit:1" }, id: "later_1" }] },
      ...unitTurns(3, 5).slice(0, -1).map((turn, i) => withIds(turn, `later_${i + 2}`)),
      "done",
    ];
    const agent = new Agent({ model: scriptedModel(second), tools: [readFile], plugins: [units, folding] });
    agent.loadState(structuredClone(saved));
    expect(agent.saveState()).toEqual(saved);
    expect(folding.stats).toEqual(first.folding?.stats);

    const events: AgentEvent[] = [];
    agent.on((e) => events.push(e));
    await agent.run("Carry on.");
    const recalled = events.find((e) => e.type === "tool-end" && e.call.name === "recall");
    expect(recalled?.type === "tool-end" && recalled.result.isError).toBe(false);
    const original = first.folding?.saveState?.() as { units: { unit: { id: string }; messages: Message[] }[] };
    const unit1 = original.units.filter((u) => u.unit.id === "1").flatMap((u) => u.messages);
    expect(recalled?.type === "tool-end" && (JSON.parse(recalled.result.text) as { messages: Message[] }).messages).toEqual(unit1);
    expect(folding.stats.prefixBreaks).toBeGreaterThan(first.folding?.stats.prefixBreaks ?? 0);
  });

  it("rejects a saved state it cannot read with a readable error", () => {
    expect(() => contextFolding().loadState?.({ version: 1 })).toThrow(/expects what contextFolding saved/);
    expect(() => contextFolding().loadState?.({ version: 99, ledger: { units: [], owners: [], order: 0 }, units: [], stubs: [], stats: {} })).toThrow(
      /version 99/,
    );
  });

  it("without a plan, stubs the oldest large tool results, keeps the latest ones, and recalls them by id", async () => {
    const turns: ScriptedTurn[] = [
      ...Array.from({ length: 12 }, (_, i) => ({ toolCalls: [{ name: "read_file", arguments: { path: `docs/page${i}.md` } }] })),
      { toolCalls: [{ name: "recall", arguments: { unit: "call_1_1" } }] },
      "done",
    ];
    const { agent, folds, events } = await run(turns, { folding: { budgetTokens: 3000 }, recite: false });
    expect(folds.length).toBeGreaterThan(0);
    expect(folds.flatMap((f) => f.units)).toEqual([]);
    const stubbed = folds.flatMap((f) => f.stubbed.map((s) => s.callId));
    expect(stubbed[0]).toBe("call_1_1");
    const stub = agent.memory.find((m) => m.role === "tool" && m.toolCallId === "call_1_1");
    expect(stub?.content).toContain('recall with unit "call_1_1"');
    expect(stub?.content).toContain("docs/page0.md");
    expect(agent.memory.filter((m) => m.role === "tool" && m.name === "read_file").length).toBe(12);
    // The latest turns' results stay whole: the model is still reading them.
    expect(stubbed).not.toContain("call_12_1");
    expect(stubbed).not.toContain("call_11_1");
    const recalled = events.find((e) => e.type === "tool-end" && e.call.name === "recall");
    const original = (await readFile.invoke({ path: "docs/page0.md" })).text;
    expect(recalled?.type === "tool-end" && recalled.result.text).toBe(original);
    expect(isValidToolSequence(agent.memory)).toBe(true);
  });

  it("can be given to one agent only", () => {
    const folding = contextFolding();
    new Agent({ model: scriptedModel([]), plugins: [folding] });
    expect(() => new Agent({ model: scriptedModel([]), plugins: [folding] })).toThrow(/give each agent its own/);
  });

  it("takes its budget from a share of the context window", () => {
    expect(contextFolding().budgetTokens).toBe(64_000);
    expect(contextFolding({ contextWindow: 200_000, share: 0.25 }).budgetTokens).toBe(50_000);
    expect(contextFolding({ budgetTokens: 1234 }).budgetTokens).toBe(1234);
  });
});

/** Gives a scripted turn's calls explicit ids, so a second model's ids do not repeat the first one's. */
function withIds(turn: ScriptedTurn, prefix: string): ScriptedTurn {
  if (typeof turn !== "object") return turn;
  return { ...turn, ...(turn.toolCalls ? { toolCalls: turn.toolCalls.map((call, j) => ({ ...call, id: `${prefix}_${j}` })) } : {}) };
}
