import fc from "fast-check";
import { expect, it } from "vitest";
import { Agent } from "../../core/agent.js";
import { scriptedModel } from "../../models/scripted.js";
import { TODO_STATUSES } from "./todo.js";
import { todoList } from "./todo-list.js";

const content = fc.string({ minLength: 1, maxLength: 20 }).filter((s) => s.trim() === s && s !== "");
const todo = fc.record({ content, status: fc.constantFrom(...TODO_STATUSES) });
const writes = fc.array(fc.array(todo, { maxLength: 6 }), { minLength: 1, maxLength: 5 });

it("any sequence of writes survives save and load: same list, same ids, same recitation", async () => {
  await fc.assert(
    fc.asyncProperty(writes, fc.boolean(), async (lists, ids) => {
      const turns = lists.map((todos) => ({ toolCalls: [{ name: "write_todos", arguments: { todos } }] }));
      const original = scriptedModel([...turns, "ok", "again"]);
      const first = new Agent({ model: original, plugins: [todoList({ ids })] });
      await first.run("go");
      const saved = JSON.parse(JSON.stringify(first.saveState()));

      const restored = todoList({ ids });
      const resumed = scriptedModel(["again"]);
      const second = new Agent({ model: resumed, plugins: [restored] });
      second.loadState(saved);
      expect(restored.todos).toEqual(lists.at(-1));
      expect(second.saveState().plugins).toEqual(saved.plugins);

      await first.run("continue");
      await second.run("continue");
      expect(resumed.requests.at(-1)?.messages.at(-1)).toEqual(original.requests.at(-1)?.messages.at(-1));
    }),
    { numRuns: 50 },
  );
});
