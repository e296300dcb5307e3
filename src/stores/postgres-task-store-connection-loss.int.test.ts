import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { TaskBoardChange } from "../planning/tasks/task.js";
import { PostgresTaskStore } from "./postgres-task-store.js";
import { freshSchema } from "./test-support/fresh-schema.js";
import { uniqueBoardId } from "./test-support/shared-board-workload.js";

// A schema of its own, so that this suite's tables (and their migrations) never meet another run's.
const schema = await freshSchema();
const admin = new pg.Pool({ connectionString: schema.url });
afterAll(async () => {
  await admin.end();
  await schema.drop();
});

/** A store with its own pool whose connections carry a name we can find in pg_stat_activity. */
function namedStore(prefix: string) {
  const boardId = uniqueBoardId(prefix);
  const application = `stepwise-${boardId}`.slice(0, 63);
  const url = new URL(schema.url);
  url.searchParams.set("application_name", application);
  const store = new PostgresTaskStore({ boardId, connectionString: url.toString() });
  /** Ends the store's server connections, as a server restart would. */
  const dropConnections = async () => {
    const { rows } = await admin.query<{ ended: boolean }>(
      "SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1",
      [application],
    );
    return rows.length;
  };
  return { store, dropConnections };
}

describe("PostgresTaskStore when connections are lost", () => {
  it("survives its own pool's idle connections being dropped, and keeps working", async () => {
    const { store, dropConnections } = namedStore("idle-drop");
    // Without a listener on the pool, the dropped idle connection's 'error' is thrown uncaught,
    // which ends a real process.
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    try {
      await store.create({ subject: "before", description: "" });
      expect(await dropConnections()).toBeGreaterThan(0);
      await expect.poll(async () => (await store.list()).map((task) => task.subject), { timeout: 5_000 }).toEqual(["before"]);
      expect(uncaught).toEqual([]);
    } finally {
      process.off("uncaughtException", onUncaught);
      await store.deleteBoard();
      await store.close();
    }
  });

  it("tells the subscriber when the listening connection breaks, releases it, and unsubscribing afterwards is harmless", async () => {
    const { store, dropConnections } = namedStore("listen-drop");
    const errors: Error[] = [];
    try {
      const unsubscribe = await store.subscribe(() => undefined, { onError: (error) => errors.push(error) });
      await dropConnections();
      await expect.poll(() => errors.length, { timeout: 5_000 }).toBe(1);
      expect(errors[0]?.message).toContain("connection broke");
      await unsubscribe();
      await store.create({ subject: "after", description: "" });
      expect((await store.list()).map((task) => task.subject)).toEqual(["after"]);
    } finally {
      await store.deleteBoard();
      await store.close();
    }
  });

  it("keeps delivering changes after a listener throws or a notification is not JSON, reporting each to onError", async () => {
    const { store } = namedStore("listener-throws");
    const seen: TaskBoardChange[] = [];
    const errors: Error[] = [];
    const unsubscribe = await store.subscribe(
      (change) => {
        seen.push(change);
        if (seen.length === 1) throw new Error("listener bug");
      },
      { onError: (error) => errors.push(error) },
    );
    try {
      await store.create({ subject: "a", description: "" });
      await admin.query("SELECT pg_notify($1, 'not json')", [store.channel]);
      await store.create({ subject: "b", description: "" });
      await expect.poll(() => seen.length).toBe(2);
      expect(seen.map((change) => change.taskIds)).toEqual([["1"], ["2"]]);
      // The store batches its announcements, so the foreign notification may come before or after them.
      await expect.poll(() => errors.length).toBe(2);
      expect(errors.map((error) => error.constructor.name).sort()).toEqual(["Error", "SyntaxError"]);
      expect(errors.find((error) => error.constructor.name === "Error")?.message).toBe("listener bug");
    } finally {
      await unsubscribe();
      await store.deleteBoard();
      await store.close();
    }
  });

  it("closes twice without error", async () => {
    const { store } = namedStore("close-twice");
    await store.list();
    await store.close();
    await expect(store.close()).resolves.toBeUndefined();
  });
});
