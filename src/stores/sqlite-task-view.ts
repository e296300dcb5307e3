import { viewGroups, type TaskListFilter } from "../planning/tasks/task-list-view.js";

// A pending task is free to start when it has no owner and none of its blockers (a JSON array of
// ids) is a task on the board that is not completed; a deleted blocker counts as done.
// CROSS JOIN keeps SQLite's join order: each blocker id, then its row by key. Left to choose, SQLite
// walked the whole board for every task it checked (36 s for the counts of 20,000 tasks, now 16 ms).
const OPEN_BLOCKER = `EXISTS (SELECT 1 FROM json_each(t.blocked_by) AS b
  CROSS JOIN stepwise_tasks x ON x.board_id = t.board_id AND x.id = b.value WHERE x.state <> 'completed')`;
const IS_READY = `t.state = 'pending' AND t.owner IS NULL AND NOT ${OPEN_BLOCKER}`;
const IS_WAITING = `t.state = 'pending' AND (t.owner IS NOT NULL OR ${OPEN_BLOCKER})`;
/** Each view group's rows, by rank (see viewGroups). */
const GROUP_WHERE = ["t.state = 'in_progress'", IS_READY, IS_WAITING, "t.state = 'completed'"];

/**
 * The task @owner should claim next (@board): the lowest-numbered pending, unblocked task that is
 * unowned or already theirs, reached through the state index, so completed tasks are never read.
 */
export const SQLITE_NEXT_CLAIMABLE = `
  SELECT t.* FROM stepwise_tasks t
  WHERE t.board_id = @board AND t.state = 'pending' AND (t.owner IS NULL OR t.owner = @owner) AND NOT ${OPEN_BLOCKER}
  ORDER BY t.id LIMIT 1`;

/** The board's counts in one statement (@board), without reading the tasks out of the database. */
export const SQLITE_COUNTS = `
  SELECT sum(t.state = 'pending') AS pending, sum(t.state = 'in_progress') AS in_progress, sum(t.state = 'completed') AS completed,
    sum(${IS_READY}) AS ready
  FROM stepwise_tasks t WHERE t.board_id = @board`;

/**
 * TaskList's page in SQL (@board, @limit, @owner): each group's first @limit rows by id, then the
 * first @limit of those by rank and id, with each row's blockers' states as a JSON object; and, for
 * an owner filter, the statement that counts the matching tasks.
 */
export function sqliteTaskView(filter: TaskListFilter): { page: string; matching?: string } {
  const groups = viewGroups(filter);
  const owner = filter.owner !== undefined ? " AND t.owner = @owner" : "";
  if (groups.length === 0) return { page: "SELECT *, '{}' AS blocker_states FROM stepwise_tasks WHERE 0 AND board_id = @board" };
  const branches = groups.map(
    (group) => `SELECT * FROM (SELECT t.*, ${group.rank} AS rank FROM stepwise_tasks t WHERE t.board_id = @board AND ${GROUP_WHERE[group.rank]}${owner} ORDER BY t.id LIMIT @limit)`,
  );
  const page = `
    SELECT v.*, (SELECT json_group_object(x.id, x.state) FROM json_each(v.blocked_by) AS b
      CROSS JOIN stepwise_tasks x ON x.board_id = v.board_id AND x.id = b.value) AS blocker_states
    FROM (SELECT * FROM (${branches.join(" UNION ALL ")}) ORDER BY rank, id LIMIT @limit) v ORDER BY v.id`;
  if (filter.owner === undefined) return { page };
  const where = groups.map((group) => `(${GROUP_WHERE[group.rank]})`).join(" OR ");
  return { page, matching: `SELECT count(*) FROM stepwise_tasks t WHERE t.board_id = @board AND t.owner = @owner AND (${where})` };
}
