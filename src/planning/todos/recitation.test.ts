import { describe, expect, it } from "vitest";
import { reciteTodos } from "./recitation.js";
import type { StoredTodo } from "./todo.js";

const items: StoredTodo[] = [
  { id: 1, content: "Find the old logger calls", status: "completed", started: true },
  { id: 2, content: "Migrate src/a.ts", status: "in_progress", started: true },
  { id: 3, content: "Run the tests", status: "pending", started: false },
];

describe("todo recitation", () => {
  it("holds every item with its status, in order", () => {
    const text = reciteTodos(items, { ids: false });
    expect(text).toContain("[completed] Find the old logger calls");
    expect(text).toContain("[in_progress] Migrate src/a.ts");
    expect(text).toContain("[pending] Run the tests");
    expect(text.indexOf("Find")).toBeLessThan(text.indexOf("Migrate"));
    expect(text).toMatch(/^<todo-list>[\s\S]*<\/todo-list>$/);
  });

  it("shows ids only when they are on", () => {
    expect(reciteTodos(items, { ids: true })).toContain("#2 [in_progress] Migrate src/a.ts");
    expect(reciteTodos(items, { ids: false })).not.toContain("#2");
  });

  it("points to write_todos while work remains", () => {
    expect(reciteTodos(items, { ids: false })).toMatch(/write_todos/);
  });

  it("says the answer is still owed once every item is completed", () => {
    const done = items.map((item) => ({ ...item, status: "completed" as const }));
    const text = reciteTodos(done, { ids: false });
    expect(text).toMatch(/next message is your answer to the user/);
    expect(text).not.toMatch(/write_todos/);
  });
});
