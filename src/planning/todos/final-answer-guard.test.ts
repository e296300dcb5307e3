import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { FINAL_ANSWER_NOTE } from "./final-answer-guard.js";
import { todoList } from "./todo-list.js";

const finish = { toolCalls: [{ name: "write_todos", arguments: { todos: [{ content: "A", status: "completed" }] } }] };
const start = { toolCalls: [{ name: "write_todos", arguments: { todos: [{ content: "A", status: "in_progress" }] } }] };

describe("final-answer guard", () => {
  it("asks once more for the answer when the run would end empty right after write_todos", async () => {
    const model = scriptedModel([start, finish, "", "Here is the migration summary."]);
    const agent = new Agent({ model, plugins: [todoList()] });
    const result = await agent.run("go");
    expect(result).toMatchObject({ text: "Here is the migration summary.", stopReason: "final", steps: 4 });
    expect(model.requests[3]?.messages.at(-1)).toEqual({ role: "user", content: FINAL_ANSWER_NOTE });
    expect(agent.memory.some((m) => m.content === FINAL_ANSWER_NOTE)).toBe(false);
  });

  it("fires exactly once per run: a second empty answer ends the run", async () => {
    const model = scriptedModel([finish, "", "   "]);
    const agent = new Agent({ model, plugins: [todoList()] });
    const result = await agent.run("go");
    expect(result.steps).toBe(3);
    expect(model.requests.filter((req) => req.messages.at(-1)?.content === FINAL_ANSWER_NOTE)).toHaveLength(1);
  });

  it("fires again in a later run", async () => {
    const model = scriptedModel([finish, "", "first answer", finish, "", "second answer"]);
    const agent = new Agent({ model, plugins: [todoList()] });
    expect((await agent.run("one")).text).toBe("first answer");
    expect((await agent.run("two")).text).toBe("second answer");
  });

  it("stays quiet when the answer is not empty, or the turn before was not write_todos", async () => {
    const answered = scriptedModel([finish, "Done: all files migrated."]);
    expect((await new Agent({ model: answered, plugins: [todoList()] }).run("go")).steps).toBe(2);
    const silent = scriptedModel([""]);
    expect((await new Agent({ model: silent, plugins: [todoList()] }).run("go")).steps).toBe(1);
  });
});

it("the note asks for the answer to the user without tool calls", () => {
  expect(FINAL_ANSWER_NOTE).toMatch(/answer to the user/);
  expect(FINAL_ANSWER_NOTE).toMatch(/without tool calls/);
});
