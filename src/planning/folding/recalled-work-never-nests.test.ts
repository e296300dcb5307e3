import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import type { Message } from "../../core/messages.js";
import { scriptedModel, type ScriptedTurn } from "../../models/scripted.js";
import { contextFolding } from "./context-folding.js";
import { readFile, unitTurns, workUnits } from "./test-support/work-units.js";

const recall = (args: object, id: string): ScriptedTurn => ({ toolCalls: [{ name: "recall", arguments: args, id }] });

/** Units 1-6; in unit 5 the model recalls unit 1, and at the end recalls unit 5 and asks unit 2 for one file. */
async function run() {
  const turns = unitTurns(6, 5);
  const unit5 = turns.findIndex((turn) => typeof turn === "object" && turn.toolCalls?.[0]?.name === "start_unit" && (turn.toolCalls[0].arguments as { id: string }).id === "5");
  turns.splice(unit5 + 1, 0, recall({ unit: "unit:1" }, "recall_in_5"));
  turns.splice(turns.length - 1, 0, recall({ unit: "unit:5" }, "recall_5"), recall({ unit: "unit:2", match: "src/u2/f3.ts" }, "match_2"), recall({ unit: "unit:2", match: "nowhere.ts" }, "miss_2"));
  const model = scriptedModel(turns);
  const agent = new Agent({ model, tools: [readFile], plugins: [workUnits({ recite: false }), contextFolding({ budgetTokens: 2_500 })], maxSteps: 500 });
  // Each result as the call returned it (folding may have taken it out of memory since).
  const results = new Map<string, string>();
  agent.on((event) => {
    if (event.type === "tool-end") results.set(event.call.id, event.result.text);
  });
  await agent.run("Build the thing.");
  const result = (id: string) => ({ content: results.get(id) ?? "" });
  return { result };
}

describe("recall", () => {
  it("gives back a unit that recalled another with a pointer in place of what it recalled, so recalls never nest", async () => {
    const { result } = await run();
    const inner = result("recall_in_5").content;
    expect(inner).toContain("src/u1/f0.ts");
    const outer = JSON.parse(result("recall_5").content) as { messages: Message[] };
    const pointer = outer.messages.find((m) => m.role === "tool" && m.toolCallId === "recall_in_5");
    expect(pointer?.content).toBe('[This recalled "unit:1"; call recall with that unit to read it again.]');
    expect(result("recall_5").content).not.toContain("src/u1/f0.ts");
    expect(outer.messages.some((m) => m.role === "tool" && m.content.startsWith("// src/u5/f1.ts"))).toBe(true);
  });

  it("with match, gives back only the calls and results that mention it, and says when nothing does", async () => {
    const { result } = await run();
    const matched = JSON.parse(result("match_2").content) as { match: string; messages: Message[] };
    expect(matched.match).toBe("src/u2/f3.ts");
    expect(matched.messages).toHaveLength(2);
    expect(matched.messages[0]).toMatchObject({ role: "assistant", toolCalls: [{ name: "read_file" }] });
    expect(matched.messages[1]?.content.startsWith("// src/u2/f3.ts")).toBe(true);
    expect(result("miss_2").content).toMatch(/^Nothing in unit:2 mentions "nowhere\.ts"; pass a file, URL or id its note lists/);
  });
});
