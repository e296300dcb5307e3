// The bare-SQL sides board-claims is judged against, each drained by the same number of workers
// (one pool each, as separate processes would have) with no Stepwise code:
// - the same workload (rawSqlClaimsPerSecond): a table of the same tasks (id, state, blockers); each
//   worker claims the lowest pending task whose blockers are done with one prepared
//   UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1), blockers checked as Stepwise
//   checks them (one lookup by key per blocker), then marks it done with a second statement, and
//   stops after two empty looks in a row with nothing in progress, as the pool does;
// - the floor (floorClaimsPerSecond): a pgbench-style ready queue of as many tasks, no blockers,
//   claimed with FOR UPDATE SKIP LOCKED and marked done: two prepared statements, nothing else.
// Both are loaded and then VACUUM ANALYZEd, so their plans are the ones a tuned database would pick.
import pg from "pg";
import type { TaskImport } from "../src/planning/tasks/task.js";

type Drain = { pools: pg.Pool[]; table: string };

export async function rawSqlClaimsPerSecond(opts: Drain & { tasks: readonly TaskImport[]; idleWaitMs: number }): Promise<number> {
  const table = pg.escapeIdentifier(opts.table);
  return withTable(opts, `CREATE TABLE ${table} (id bigint PRIMARY KEY, state text NOT NULL, blocked_by bigint[] NOT NULL)`, async (admin) => {
    await admin.query(
      `INSERT INTO ${table} SELECT r.id, 'pending', r.blocked_by FROM jsonb_to_recordset($1::jsonb) AS r (id bigint, blocked_by bigint[])`,
      [JSON.stringify(opts.tasks.map((task) => ({ id: Number(task.id), blocked_by: `{${(task.blockedBy ?? []).join(",")}}` })))],
    );
    await admin.query(`CREATE INDEX ON ${table} (id) WHERE state = 'pending'`);
    await admin.query(`VACUUM ANALYZE ${table}`);
    const claim = {
      name: `claim-${opts.table}`,
      text: `UPDATE ${table} SET state = 'in_progress' WHERE id = (
        SELECT t.id FROM ${table} t WHERE t.state = 'pending'
          AND NOT EXISTS (SELECT 1 FROM unnest(t.blocked_by) AS blocker (id)
            WHERE (SELECT b.state FROM ${table} b WHERE b.id = blocker.id) <> 'done')
        ORDER BY t.id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id`,
    };
    const done = { name: `done-${opts.table}`, text: `UPDATE ${table} SET state = 'done' WHERE id = $1` };
    const running = { name: `running-${opts.table}`, text: `SELECT count(*)::int AS n FROM ${table} WHERE state = 'in_progress'` };
    return drain(opts.pools, opts.tasks.length, async (pool) => {
      let idle = 0;
      let claims = 0;
      while (idle < 2) {
        const { rows } = await pool.query<{ id: string }>(claim);
        const id = rows[0]?.id;
        if (id === undefined) {
          const { rows: counted } = await pool.query<{ n: number }>(running);
          idle = counted[0]?.n === 0 ? idle + 1 : 0;
          await new Promise((resolve) => setTimeout(resolve, opts.idleWaitMs));
          continue;
        }
        idle = 0;
        claims++;
        await pool.query({ ...done, values: [id] });
      }
      return claims;
    });
  });
}

export async function floorClaimsPerSecond(opts: Drain & { tasks: number }): Promise<number> {
  const table = pg.escapeIdentifier(opts.table);
  return withTable(opts, `CREATE TABLE ${table} (id bigint PRIMARY KEY, state text NOT NULL)`, async (admin) => {
    await admin.query(`INSERT INTO ${table} SELECT i, 'pending' FROM generate_series(1, $1::int) AS i`, [opts.tasks]);
    await admin.query(`CREATE INDEX ON ${table} (id) WHERE state = 'pending'`);
    await admin.query(`VACUUM ANALYZE ${table}`);
    const claim = {
      name: `floor-claim-${opts.table}`,
      text: `UPDATE ${table} SET state = 'running' WHERE id = (
        SELECT id FROM ${table} WHERE state = 'pending' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id`,
    };
    const done = { name: `floor-done-${opts.table}`, text: `UPDATE ${table} SET state = 'done' WHERE id = $1` };
    return drain(opts.pools, opts.tasks, async (pool) => {
      let claims = 0;
      for (;;) {
        const { rows } = await pool.query<{ id: string }>(claim);
        const id = rows[0]?.id;
        if (id === undefined) return claims;
        claims++;
        await pool.query({ ...done, values: [id] });
      }
    });
  });
}

/** Creates `opts.table`, runs `body`, and drops the table again whatever happens. */
async function withTable(opts: Drain, ddl: string, body: (admin: pg.Pool) => Promise<number>): Promise<number> {
  const [admin] = opts.pools;
  if (!admin) throw new Error("bare-SQL claims need at least one pool");
  await admin.query(ddl);
  try {
    return await body(admin);
  } finally {
    await admin.query(`DROP TABLE IF EXISTS ${pg.escapeIdentifier(opts.table)}`);
  }
}

/**
 * Opens every connection `pools` may hold (each pool's max), so that no side forks a server process
 * inside its timed drain: Stepwise's pools use their second connection to announce changes.
 */
export async function openConnections(pools: readonly pg.Pool[]): Promise<void> {
  const clients = await Promise.all(pools.flatMap((pool) => Array.from({ length: pool.options.max }, () => pool.connect())));
  for (const client of clients) client.release();
}

/**
 * Runs `worker` on every pool at once, each pool's connections opened before the clock starts; claims per second
 * over the whole drain, which must claim `expected` tasks.
 */
async function drain(pools: readonly pg.Pool[], expected: number, worker: (pool: pg.Pool) => Promise<number>): Promise<number> {
  await openConnections(pools);
  const started = performance.now();
  const claims = (await Promise.all(pools.map(worker))).reduce((sum, n) => sum + n, 0);
  const seconds = (performance.now() - started) / 1000;
  if (claims !== expected) throw new Error(`bare-SQL claims: ${claims} of ${expected} tasks claimed`);
  return Math.round(claims / seconds);
}
