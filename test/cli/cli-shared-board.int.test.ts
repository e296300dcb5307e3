import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresTaskStore } from "../../src/stores/postgres-task-store.js";
import { freshSchema } from "../../src/stores/test-support/fresh-schema.js";
import { freshHome, runCli } from "./cli-harness.js";

// The README's command against the test database, in a schema of its own that goes when the test does
// (the board and the runs would otherwise stay in the database after every CI run).
let storeUrl = "";
let schema: Awaited<ReturnType<typeof freshSchema>>;
beforeAll(async () => {
  schema = await freshSchema();
  storeUrl = schema.url;
});
afterAll(() => schema?.drop());

describe("the README's shared-board command with the scripted demo (needs PostgreSQL on 127.0.0.1:5432)", () => {
  it("wires each run's own tasks by the ids the board gave them, and a second run leaves the first one's finished tasks alone", async () => {
    const home = freshHome();
    const ws = join(home, "ws");
    mkdirSync(ws);
    writeFileSync(join(ws, "b.txt"), "bravo\n");
    const board = `cli-shared-${randomUUID()}`;
    const run = () => runCli(["run", "Report", "-s", "tasks", "-m", "scripted:demo", "-w", ws, "--store", storeUrl, "--board", board], { home });

    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^plan: Task board 6\/6 done$/m);
    expect(second.stdout).toMatch(/The board already held 3 task\(s\) from earlier work; I left them as they were/);
    expect(second.stdout).not.toMatch(/plan: Task board [0-2]\/6 done/);

    const store = new PostgresTaskStore({ connectionString: storeUrl, boardId: board });
    try {
      const tasks = await store.list();
      expect(tasks).toHaveLength(6);
      expect(tasks.every((task) => task.state === "completed")).toBe(true);
      const subject = (id: string | undefined) => tasks.find((task) => task.id === id)?.subject;
      // Whatever ids the board handed out, each read waits for a survey and each write for a read.
      for (const task of tasks) {
        const after = task.blockedBy.map(subject);
        if (task.subject === "Survey the workspace") expect(after).toEqual([]);
        if (task.subject === "Read every file") expect(after).toEqual(["Survey the workspace"]);
        if (task.subject === "Write report.md") expect(after).toEqual(["Read every file"]);
      }
    } finally {
      await store.close();
    }
  });
});
