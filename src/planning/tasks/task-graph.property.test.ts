import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryTaskStore } from "./memory-task-store.js";
import { TaskRuleError, type Task } from "./task.js";

type Command =
  | { kind: "create" }
  | { kind: "edge"; from: number; to: number; blocks: boolean }
  | { kind: "delete"; at: number }
  | { kind: "reset" };

// Indexes pick among the ids ever issued, plus a few that never existed.
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: "create" as const }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("edge" as const), from: fc.nat(40), to: fc.nat(40), blocks: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), at: fc.nat(40) }) },
  { weight: 1, arbitrary: fc.constant({ kind: "reset" as const }) },
);

function checkInvariants(tasks: Task[]): void {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  for (const task of tasks) {
    for (const blocker of task.blockedBy) expect(byId.get(blocker)?.blocks).toContain(task.id);
    for (const blocked of task.blocks) expect(byId.get(blocked)?.blockedBy).toContain(task.id);
    expect(task.blockedBy).not.toContain(task.id);
  }
  // Kahn's algorithm consumes every task only if the graph has no cycle.
  const waiting = new Map(tasks.map((task) => [task.id, task.blockedBy.length]));
  const ready = tasks.filter((task) => task.blockedBy.length === 0).map((task) => task.id);
  let seen = 0;
  while (ready.length > 0) {
    const id = ready.pop() as string;
    seen++;
    for (const blocked of byId.get(id)?.blocks ?? []) {
      const left = (waiting.get(blocked) ?? 0) - 1;
      waiting.set(blocked, left);
      if (left === 0) ready.push(blocked);
    }
  }
  expect(seen).toBe(tasks.length);
}

function waitsOn(tasks: Task[], from: string, to: string): boolean {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const stack = [from];
  const seen = new Set<string>();
  while (stack.length > 0) {
    const id = stack.pop() as string;
    if (id === to) return true;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(byId.get(id)?.blockedBy ?? []));
  }
  return false;
}

describe("task graph under random creates, edges, deletes and resets", () => {
  it("keeps edges symmetric and acyclic, refuses only what it must, and never reuses an id", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { maxLength: 60 }), async (commands) => {
        const store = new MemoryTaskStore();
        const issued: string[] = [];
        const idAt = (index: number) => String(index + 1);
        for (const step of commands) {
          const before = await store.list();
          if (step.kind === "create") {
            const { id } = await store.create({ subject: "t", description: "" });
            expect(issued).not.toContain(id);
            expect(issued.every((earlier) => Number(earlier) < Number(id))).toBe(true);
            issued.push(id);
          } else if (step.kind === "edge") {
            const [from, to] = [idAt(step.from), idAt(step.to)];
            const blocker = step.blocks ? from : to;
            const blocked = step.blocks ? to : from;
            const change = step.blocks ? { addBlocks: [to] } : { addBlockedBy: [to] };
            const exists = (id: string) => before.some((task) => task.id === id);
            const mustRefuse = from === to || !exists(from) || !exists(to) || waitsOn(before, blocker, blocked);
            const outcome = await store.update(from, change).then(
              () => "applied",
              (error: unknown) => {
                expect(error).toBeInstanceOf(TaskRuleError);
                return "refused";
              },
            );
            expect(outcome).toBe(mustRefuse ? "refused" : "applied");
            if (outcome === "refused") expect(await store.list()).toEqual(before);
          } else if (step.kind === "delete") {
            const id = idAt(step.at);
            if (before.some((task) => task.id === id)) await store.remove(id);
            else await expect(store.remove(id)).rejects.toBeInstanceOf(TaskRuleError);
          } else {
            await store.replaceAll([]);
          }
          checkInvariants(await store.list());
        }
      }),
      { numRuns: 200 },
    );
  });
});
