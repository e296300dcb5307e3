import { describe, expect, it } from "vitest";
import { progressLine, reciteTodos, savedIds, tokensSinceList } from "./recitation.js";
import type { StoredTodo } from "./todo.js";

const items: StoredTodo[] = [
  { id: 1, content: "Find the old logger calls", status: "completed", started: true },
  { id: 2, content: "Migrate src/a.ts", status: "in_progress", started: true },
  { id: 3, content: "Migrate src/b.ts", status: "pending", started: false },
  { id: 4, content: "Run the tests", status: "pending", started: false },
];

describe("todo recitation", () => {
  it("holds every open item once, in order, under the status of its run of items, and completed ones by id", () => {
    expect(reciteTodos(items, { ids: true })).toBe(
      ["<todo-list>", "completed: #1", "in_progress:", "#2 Migrate src/a.ts", "pending:", "#3 Migrate src/b.ts", "#4 Run the tests", "</todo-list>"].join("\n"),
    );
  });

  it("keeps the list's order when statuses interleave, naming the status again for each run", () => {
    const mixed = [items[2], items[0], { ...items[1], status: "completed" }, items[3]] as StoredTodo[];
    expect(reciteTodos(mixed, { ids: true })).toBe(["<todo-list>", "pending:", "#3 Migrate src/b.ts", "completed: #1 #2", "pending:", "#4 Run the tests", "</todo-list>"].join("\n"));
  });

  it("shows every item in full when ids are off, as there is nothing else to name a completed one by", () => {
    expect(reciteTodos(items, { ids: false })).toContain("completed:\nFind the old logger calls\nin_progress:\nMigrate src/a.ts\n");
    expect(reciteTodos(items, { ids: false })).not.toContain("#");
  });

  it("says the answer is still owed once every item is completed, and only then", () => {
    const done = items.map((item) => ({ ...item, status: "completed" as const }));
    expect(reciteTodos(done, { ids: true })).toBe("<todo-list>\ncompleted: #1 #2 #3 #4\nAll completed: your next message is your answer to the user.\n</todo-list>");
    expect(reciteTodos(items, { ids: true })).not.toMatch(/answer/);
  });

  it("answers a complete list with its ids, and a status change with the item in progress and how far the list is", () => {
    expect(savedIds(items)).toBe("Saved as #1–#4.");
    expect(savedIds([items[2], items[0]] as StoredTodo[])).toBe("Saved as #3 #1.");
    expect(progressLine(items, { ids: true })).toBe("Saved. In progress: #2 Migrate src/a.ts; 1 of 4 completed.");
    expect(progressLine(items.filter((item) => item.status !== "in_progress"), { ids: true })).toBe("Saved. Nothing in progress; 1 of 3 completed.");
  });

  it("measures how far back the last full copy of the list lies: a recitation or a complete list's result, none at all counting as too far", () => {
    const read = { role: "tool" as const, content: "x".repeat(400), toolCallId: "r", name: "read_file" };
    expect(tokensSinceList([{ role: "user", content: "go" }, read])).toBe(Number.POSITIVE_INFINITY);
    const saved = { role: "tool" as const, content: "Saved as #1–#4.", toolCallId: "w", name: "write_todos" };
    expect(tokensSinceList([saved, read, read])).toBeGreaterThan(200);
    expect(tokensSinceList([saved, read, { role: "tool", content: reciteTodos(items, { ids: true }), toolCallId: "w2", name: "write_todos" }])).toBe(0);
    // A progress line is not a copy of the list.
    expect(tokensSinceList([saved, read, { role: "tool", content: progressLine(items, { ids: true }), toolCallId: "w3", name: "write_todos" }])).toBeGreaterThan(100);
  });
});
