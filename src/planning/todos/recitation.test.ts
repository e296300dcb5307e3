import { describe, expect, it } from "vitest";
import { reciteTodos } from "./recitation.js";
import type { StoredTodo } from "./todo.js";

const items: StoredTodo[] = [
  { id: 1, content: "Find the old logger calls", status: "completed", started: true },
  { id: 2, content: "Migrate src/a.ts", status: "in_progress", started: true },
  { id: 3, content: "Migrate src/b.ts", status: "pending", started: false },
  { id: 4, content: "Run the tests", status: "pending", started: false },
];

describe("todo recitation", () => {
  it("holds every item once, in order, under the status of its run of items", () => {
    expect(reciteTodos(items, { ids: true })).toBe(
      [
        "<todo-list>",
        "completed:",
        "#1 Find the old logger calls",
        "in_progress:",
        "#2 Migrate src/a.ts",
        "pending:",
        "#3 Migrate src/b.ts",
        "#4 Run the tests",
        "</todo-list>",
      ].join("\n"),
    );
  });

  it("keeps the list's order when statuses interleave, naming the status again for each run", () => {
    const mixed = [items[2], items[0], items[3]] as StoredTodo[];
    expect(reciteTodos(mixed, { ids: true })).toMatch(/^<todo-list>\npending:\n#3 .*\ncompleted:\n#1 .*\npending:\n#4 .*\n<\/todo-list>$/);
  });

  it("shows ids only when they are on", () => {
    expect(reciteTodos(items, { ids: false })).toContain("in_progress:\nMigrate src/a.ts\n");
    expect(reciteTodos(items, { ids: false })).not.toContain("#");
  });

  it("says the answer is still owed once every item is completed, and only then", () => {
    const done = items.map((item) => ({ ...item, status: "completed" as const }));
    expect(reciteTodos(done, { ids: true })).toMatch(/next message is your answer to the user/);
    expect(reciteTodos(items, { ids: true })).not.toMatch(/answer/);
  });
});
