// The ceiling board-claims is judged against: the same workload drained by the same number of
// workers with bare SQL, no Stepwise code. A table of the same tasks (id, state, blockers); each
// worker claims the lowest pending task whose blockers are done with one prepared
// UPDATE … WHERE id = (SELECT … FOR UPDATE SKIP LOCKED LIMIT 1), then marks it done with a second
// statement, and stops after two empty looks in a row with nothing in progress, as the pool does.
import pg from "pg";
import type { TaskImport } from "../src/planning/tasks/task.js";

export async function rawSqlClaimsPerSecond(opts: { tasks: readonly TaskImport[]; pools: pg.Pool[]; table: string; idleWaitMs: number }): Promise<number> {
  const [admin] = opts.pools;
  if (!admin) throw new Error("rawSqlClaimsPerSecond needs at least one pool");
  const table = pg.escapeIdentifier(opts.table);
  await admin.query(`CREATE TABLE ${table} (id bigint PRIMARY KEY, state text NOT NULL, blocked_by bigint[] NOT NULL)`);
  try {
    await admin.query(
      `INSERT INTO ${table} SELECT r.id, 'pending', r.blocked_by FROM jsonb_to_recordset($1::jsonb) AS r (id bigint, blocked_by bigint[])`,
      [JSON.stringify(opts.tasks.map((task) => ({ id: Number(task.id), blocked_by: `{${(task.blockedBy ?? []).join(",")}}` })))],
    );
    await admin.query(`CREATE INDEX ON ${table} (id) WHERE state = 'pending'`);
    const claim = {
      name: `claim-${opts.table}`,
      text: `UPDATE ${table} SET state = 'in_progress' WHERE id = (
        SELECT t.id FROM ${table} t WHERE t.state = 'pending'
          AND NOT EXISTS (SELECT 1 FROM ${table} b WHERE b.id = ANY (t.blocked_by) AND b.state <> 'done')
        ORDER BY t.id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id`,
    };
    const done = { name: `done-${opts.table}`, text: `UPDATE ${table} SET state = 'done' WHERE id = $1` };
    const running = { name: `running-${opts.table}`, text: `SELECT count(*)::int AS n FROM ${table} WHERE state = 'in_progress'` };
    let claims = 0;
    const started = performance.now();
    await Promise.all(
      opts.pools.map(async (pool) => {
        let idle = 0;
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
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    if (claims !== opts.tasks.length) throw new Error(`raw SQL claims: ${claims} of ${opts.tasks.length} tasks claimed`);
    return Math.round(claims / seconds);
  } finally {
    await admin.query(`DROP TABLE IF EXISTS ${table}`);
  }
}
