import { describe, expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { todoList } from "./todo-list.js";
import { TODO_INSTRUCTIONS, writeTodosDescription } from "./write-todos-description.js";

// Each rule reference 004 (§4-5) says the model needs, and where it is said.
describe("what the model reads about the todo list", () => {
  it.each([{ ids: true }, { ids: false }])("the tool says when to use it and when not, one item in progress, done at once, and blocked items (%o)", (opts) => {
    const text = writeTodosDescription(opts);
    expect(text.split("\n")[0]).toMatch(/work of three or more steps; for less, just do the work/);
    expect(text).toMatch(/exactly one item in_progress/);
    expect(text).toMatch(/completed as soon as it is done/);
    expect(text).toMatch(/If it is blocked, keep it in_progress and add an item for what blocks it/);
    expect(text).toMatch(/in the same turn as the call that starts the next step/);
  });

  it("with ids, says to write the list once and then send only what changes, by id", () => {
    const text = writeTodosDescription({ ids: true });
    expect(text).toMatch(/Write it once with `todos`, the first item in_progress; then send only what changes, `updates` \{id: status\}/);
    expect(text).toMatch(/`todos` again adds, drops or reorders items/);
  });

  it("without ids, says each call replaces the whole list", () => {
    const text = writeTodosDescription({ ids: false });
    expect(text).toMatch(/replaces the whole list/);
    expect(text).not.toMatch(/`updates`/);
  });

  it("the system prompt part says when to keep a list, and that a completed list is not the answer", async () => {
    expect(TODO_INSTRUCTIONS).toMatch(/only for work of three or more steps/);
    expect(TODO_INSTRUCTIONS).toMatch(/until every item is completed/);
    expect(TODO_INSTRUCTIONS).toMatch(/a completed list is not the answer: end with a message that gives the user what they asked for/);
    const model = scriptedModel(["ok"]);
    await new Agent({ model, systemPrompt: "You help.", plugins: [todoList()] }).run("hi");
    expect(model.requests[0]?.messages[0]).toEqual({ role: "system", content: `You help.\n\n${TODO_INSTRUCTIONS}` });
  });
});
