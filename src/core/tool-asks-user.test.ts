import { describe, expect, it } from "vitest";
import { z } from "zod";
import { scriptedModel } from "../models/scripted.js";
import { Agent } from "./agent.js";
import type { ToolAnswer } from "./approval.js";
import { defineTool } from "./tool.js";

/**
 * A tool that needs two answers from the user before it books: it asks for the room, then for the
 * time, each time from inside its call, and records every call made so the test sees the re-runs.
 */
function bookingTool() {
  const made: (readonly ToolAnswer[])[] = [];
  const tool = defineTool({
    name: "book",
    description: "",
    parameters: z.object({ who: z.string() }),
    execute: ({ who }, ctx) => {
      made.push(ctx.answers ?? []);
      const answers = [...(ctx.answers ?? [])];
      const replyTo = (detail: string) => answers.find((a) => a.detail === detail)?.reply;
      const room = replyTo("room");
      if (!room) {
        ctx.askUser?.({ text: "Which room?", detail: "room" });
        return "not booked yet";
      }
      if (room.action === "reject") return `${who}: no booking, the user declined (${room.reason ?? "no reason"})`;
      const time = replyTo("time");
      if (!time) {
        ctx.askUser?.({ text: "What time?", detail: "time" });
        return "not booked yet";
      }
      return `${who}: booked ${room.action === "answer" ? room.text : ""} at ${time.action === "answer" ? time.text : "?"}`;
    },
  });
  return { tool, made };
}

const bookTurn = { toolCalls: [{ name: "book", arguments: { who: "Ada" }, id: "b1" }] };

describe("a tool that asks the user from inside its call", () => {
  it("pauses the run with a question; each answer makes the call again until it completes", async () => {
    const { tool, made } = bookingTool();
    const model = scriptedModel([bookTurn, "done"]);
    const first = new Agent({ model, tools: [tool] });
    const paused = await first.run("book a room");
    expect(paused.stopReason).toBe("awaiting-approval");
    expect(paused.pending).toEqual([expect.objectContaining({ id: "b1", name: "book", kind: "question" })]);
    expect(JSON.parse(paused.pending![0]!.arguments)).toEqual({ question: "Which room?" });
    // Nothing of the paused call is in memory yet: its result comes when the call completes.
    expect(first.memory.some((m) => m.role === "tool")).toBe(false);

    // Answered in a new agent from the saved state, as another process would.
    const second = new Agent({ model, tools: [tool] });
    const again = await second.resume(first.saveState(), { b1: { action: "answer", text: "Lovelace" } });
    expect(again.stopReason).toBe("awaiting-approval");
    expect(JSON.parse(again.pending![0]!.arguments)).toEqual({ question: "What time?" });

    const third = new Agent({ model, tools: [tool] });
    const done = await third.resume(second.saveState(), { b1: { action: "answer", text: "10:00" } });
    expect(done.stopReason).toBe("final");
    const result = third.memory.find((m) => m.role === "tool" && m.toolCallId === "b1");
    expect(result?.content).toBe("Ada: booked Lovelace at 10:00");
    // The call was made three times, each with the model's arguments and the answers so far.
    expect(made.map((answers) => answers.map((a) => a.detail))).toEqual([[], ["room"], ["room", "time"]]);
    // The model saw one result for the call, in the request after it.
    expect(model.requests[1]?.messages.filter((m) => m.role === "tool")).toHaveLength(1);
  });

  it("gives the tool a rejection as the reply, so the tool says what declining means", async () => {
    const { tool } = bookingTool();
    const agent = new Agent({ model: scriptedModel([bookTurn, "done"]), tools: [tool] });
    await agent.run("book a room");
    await agent.resume(null, { b1: { action: "reject", reason: "not now" } });
    const result = agent.memory.find((m) => m.role === "tool" && m.toolCallId === "b1");
    expect(result?.content).toBe("Ada: no booking, the user declined (not now)");
  });

  it("keeps the other calls of the turn: their results wait with the question", async () => {
    const { tool } = bookingTool();
    const note = defineTool({ name: "note", description: "", parameters: z.object({}), execute: () => "noted" });
    const turn = { toolCalls: [{ name: "note", arguments: {}, id: "n1" }, ...bookTurn.toolCalls] };
    const agent = new Agent({ model: scriptedModel([turn, "done"]), tools: [note, tool] });
    const paused = await agent.run("go");
    expect(paused.pending?.map((c) => c.id)).toEqual(["b1"]);
    await agent.resume(null, { b1: { action: "answer", text: "Turing" } });
    await agent.resume(null, { b1: { action: "answer", text: "noon" } });
    const results = agent.memory.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results).toEqual(["noted", "Ada: booked Turing at noon"]);
  });

  it("an agent with toolQuestions: false offers no askUser: the tool goes on without the user", async () => {
    const { tool } = bookingTool();
    const agent = new Agent({ model: scriptedModel([bookTurn, "done"]), tools: [tool], toolQuestions: false });
    expect((await agent.run("book")).stopReason).toBe("final");
    expect(agent.memory.find((m) => m.role === "tool")?.content).toBe("not booked yet");
  });

  it("outside an agent there is nobody to ask: the tool sees no askUser", async () => {
    const { tool } = bookingTool();
    expect((await tool.invoke({ who: "Ada" })).text).toBe("not booked yet");
  });
});
