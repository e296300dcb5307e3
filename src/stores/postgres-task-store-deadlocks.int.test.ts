import pg from "pg";
import { afterAll, expect, it } from "vitest";
import { PostgresTaskStore } from "./postgres-task-store.js";
import { freshSchema } from "./test-support/fresh-schema.js";
import { uniqueBoardId } from "./test-support/shared-board-workload.js";

// A schema of its own, so that this suite's tables (and their migrations) never meet another run's.
const schema = await freshSchema();
const pool = new pg.Pool({ connectionString: schema.url });
afterAll(async () => {
  await pool.end();
  await schema.drop();
});

type Query = (...args: unknown[]) => unknown;

/**
 * A pool whose next transaction stops after its first statement until released, and which keeps the
 * SQLSTATE of every statement that fails on it: a deadlock the store retries away still shows here.
 */
function pausingPool() {
  const paused = new pg.Pool({ connectionString: schema.url });
  const failures: string[] = [];
  let armed: { reached: (pid: number) => void; release: Promise<void> } | undefined;
  paused.on("connect", (client) => {
    const query = client.query.bind(client) as Query;
    let pausing: typeof armed;
    (client as unknown as { query: Query }).query = (...args: unknown[]) => {
      // Only the promise form the store uses inside its transactions; pool.query's callbacks pass through.
      if (typeof args.at(-1) === "function") return query(...args);
      return (async () => {
        if (armed && args[0] === "BEGIN") [pausing, armed] = [armed, undefined];
        try {
          const result = await (query(...args) as Promise<unknown>);
          if (pausing && args[0] !== "BEGIN") {
            const { reached, release } = pausing;
            pausing = undefined;
            reached(backendPid(client));
            await release;
          }
          return result;
        } catch (error) {
          failures.push(String((error as { code?: unknown }).code));
          throw error;
        }
      })();
    };
  });
  return {
    pool: paused,
    failures,
    /** Arms the pause; resolves with the paused backend's pid once its first statement has run. */
    pauseNextTransaction(): { reached: Promise<number>; release: () => void } {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      const reached = new Promise<number>((resolve) => (armed = { reached: resolve, release: released }));
      return { reached, release };
    },
  };
}

// pg keeps the backend pid from the connection handshake but leaves it out of its types.
function backendPid(client: pg.PoolClient): number {
  return (client as unknown as { processID: number }).processID;
}

/** Whether some session is waiting for a lock that backend `pid` holds. */
async function waitsOn(pid: number): Promise<boolean> {
  const { rows } = await pool.query("SELECT 1 FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))", [pid]);
  return rows.length > 0;
}

it("a store opening a board while another process is half-way through creating a task there does not deadlock with it", async () => {
  const boardId = uniqueBoardId("opening");
  const writerPool = pausingPool();
  const writer = new PostgresTaskStore({ boardId, pool: writerPool.pool });
  const opener = new PostgresTaskStore({ boardId, pool });
  try {
    await writer.create({ subject: "before", description: "" });

    // The writer's create stops holding the board row it just counted up, before inserting its task.
    const pause = writerPool.pauseNextTransaction();
    const created = writer.create({ subject: "during", description: "" });
    const writerPid = await pause.reached;
    // A fresh store opens the same board and must wait for that row; only then does the create go on.
    let openerDone = false;
    const listed = opener.list().finally(() => (openerDone = true));
    await expect.poll(async () => openerDone || (await waitsOn(writerPid)), { timeout: 10_000 }).toBe(true);
    pause.release();

    const [task, seen] = await Promise.all([created, listed]);
    expect(task.id).toBe("2");
    expect(seen.map((t) => t.subject)).toContain("before");
    expect(writerPool.failures).toEqual([]);
    expect((await opener.list()).map((t) => t.subject)).toEqual(["before", "during"]);
  } finally {
    await opener.deleteBoard();
    await writerPool.pool.end();
  }
});

it("runs a change again, unseen by its caller, when another program's locks make PostgreSQL break a deadlock through it", async () => {
  // PostgreSQL aborts the waiter whose own deadlock check finds the cycle. The store checks after 5 s
  // and the outsider only after a minute, so on however busy a machine the outsider is waiting (and the
  // cycle closed) by the time the store looks, and the store is the one rolled back.
  const storePool = new pg.Pool({ connectionString: schema.url, options: `${new URL(schema.url).searchParams.get("options") ?? ""} -c deadlock_timeout=5s` });
  const store = new PostgresTaskStore({ boardId: uniqueBoardId("retry"), pool: storePool });
  const outsider = await pool.connect();
  try {
    await outsider.query("SET deadlock_timeout = '60s'");
    await store.create({ subject: "a", description: "" });
    await store.create({ subject: "b", description: "" });
    // Another program takes task 2 and then the board row: the reverse of the store's order.
    await outsider.query("BEGIN");
    await outsider.query("SELECT 1 FROM stepwise_tasks WHERE board_id = $1 AND id = 2 FOR UPDATE", [store.boardId]);
    const linked = store.update("1", { addBlocks: ["2"] });
    let linkedDone = false;
    void linked.finally(() => (linkedDone = true)).catch(() => undefined);
    await expect.poll(async () => linkedDone || (await waitsOn(backendPid(outsider))), { timeout: 10_000 }).toBe(true);
    // The store, waiting longest, is the one PostgreSQL rolls back; it starts over after the outsider.
    await outsider.query("SELECT 1 FROM stepwise_task_boards WHERE board_id = $1 FOR UPDATE", [store.boardId]);
    await outsider.query("COMMIT");

    expect((await linked).blocks).toEqual(["2"]);
    expect((await store.get("2"))?.blockedBy).toEqual(["1"]);
  } finally {
    await outsider.query("RESET deadlock_timeout").catch(() => undefined);
    outsider.release(true);
    await store.deleteBoard();
    await storePool.end();
  }
});
