import { afterAll, describe, expect, it } from "vitest";
import { TaskRuleError, type Task } from "../../src/planning/tasks/task.js";
import { PostgresTaskStore } from "../../src/stores/postgres-task-store.js";
import { TEST_DATABASE_URL, uniqueBoardId } from "../../src/stores/test-support/shared-board-workload.js";
import { recordFigure } from "./figures.js";

/**
 * 16 writers, each with its own connection pool, on one PostgreSQL board: random creates, updates,
 * edge additions, deletions and claims. No writer ever sees a deadlock (the store's lock order rules
 * them out), and afterwards every edge has both ends, no writer's counter update is lost, and no
 * task was claimed twice.
 */
const WRITERS = 16;
const OPS_PER_WRITER = 80;

let operations = 0;
let rejected = 0;
let deadlocks = 0;
let anomalies = 0;
const anomalyNotes: string[] = [];

afterAll(() => {
  recordFigure("4-concurrent", `concurrent operations ${operations} (rule refusals ${rejected}), deadlocks reaching a writer ${deadlocks}, anomalies ${anomalies}`);
});

function isDeadlock(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === "40P01";
}

function anomaly(note: string): void {
  anomalies++;
  anomalyNotes.push(note);
}

describe("16 concurrent writers on one shared PostgreSQL board", () => {
  it("keep edges symmetric, lose no update and claim no task twice", async () => {
    const boardId = uniqueBoardId("reliability");
    const admin = new PostgresTaskStore({ boardId, connectionString: TEST_DATABASE_URL });
    try {
      // One counter task per writer, all on a shared task: every increment lands in its metadata.
      const shared = await admin.create({ subject: "shared counters", description: "one key per writer", metadata: {} });
      const seed = await Promise.all(Array.from({ length: 40 }, (_, i) => admin.create({ subject: `seed ${i}`, description: "" })));
      const claims: { id: string; owner: string }[] = [];
      const increments = new Map<string, number>();

      await Promise.all(
        Array.from({ length: WRITERS }, async (_, w) => {
          const name = `writer-${w}`;
          const store = new PostgresTaskStore({ boardId, connectionString: TEST_DATABASE_URL });
          const mine: string[] = [];
          let count = 0;
          const known = () => [...seed.map((t) => t.id), ...mine];
          const pick = () => known()[Math.floor(Math.random() * known().length)] as string;
          try {
            for (let op = 0; op < OPS_PER_WRITER; op++) {
              const roll = Math.random();
              operations++;
              try {
                if (roll < 0.2) {
                  mine.push((await store.create({ subject: `${name} #${op}`, description: "", metadata: { by: name } })).id);
                } else if (roll < 0.4) {
                  // Read-modify-write of one key in the shared task's metadata, serialized by the store.
                  await store.update(shared.id, { metadata: { [name]: count + 1 } });
                  count++;
                } else if (roll < 0.6) {
                  const [from, to] = [pick(), pick()];
                  await store.update(from, Math.random() < 0.5 ? { addBlocks: [to] } : { addBlockedBy: [to] });
                } else if (roll < 0.7) {
                  await store.update(pick(), { subject: `renamed by ${name}`, metadata: { touchedBy: name } });
                } else if (roll < 0.8 && mine.length > 0) {
                  const id = mine.splice(Math.floor(Math.random() * mine.length), 1)[0] as string;
                  await store.remove(id);
                } else {
                  const { task } = await store.claimNext(name);
                  if (task) {
                    claims.push({ id: task.id, owner: name });
                    if (task.owner !== name || task.state !== "in_progress") anomaly(`claim of ${task.id} returned ${task.owner}/${task.state}`);
                    await store.update(task.id, { state: "completed" });
                  }
                }
              } catch (error) {
                // Unknown ids (another writer deleted them), self-edges and cycles are refused by rule: fine.
                if (error instanceof TaskRuleError) rejected++;
                else {
                  // Anything else, a deadlock included, is the store failing its caller.
                  if (isDeadlock(error)) deadlocks++;
                  anomaly(`${name}: ${error instanceof Error ? error.message : String(error)}`);
                }
              }
            }
          } finally {
            increments.set(name, count);
            await store.close();
          }
        }),
      );

      const tasks = await admin.list();
      const byId = new Map<string, Task>(tasks.map((t) => [t.id, t]));
      for (const task of tasks) {
        for (const other of task.blocks) {
          if (!byId.get(other)?.blockedBy.includes(task.id)) anomaly(`edge ${task.id} blocks ${other} has no other end`);
        }
        for (const other of task.blockedBy) {
          if (!byId.get(other)?.blocks.includes(task.id)) anomaly(`edge ${other} blocks ${task.id} has no other end`);
        }
      }
      const counters = byId.get(shared.id)?.metadata ?? {};
      for (const [name, count] of increments) {
        if ((counters[name] ?? 0) !== count) anomaly(`${name} counted ${count}, the board kept ${String(counters[name])}`);
      }
      const claimed = claims.map((c) => c.id);
      for (const id of new Set(claimed)) {
        if (claimed.filter((c) => c === id).length > 1) anomaly(`task ${id} claimed ${claimed.filter((c) => c === id).length} times`);
      }
      expect(claims.length).toBeGreaterThan(0);
      expect(anomalyNotes).toEqual([]);
      expect(anomalies).toBe(0);
    } finally {
      await admin.deleteBoard();
      await admin.close();
    }
  });
});
