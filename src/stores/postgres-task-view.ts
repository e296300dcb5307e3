import { viewGroups, type TaskListFilter } from "../planning/tasks/task-list-view.js";
import { IS_READY, IS_WAITING } from "./postgres-task-schema.js";

/**
 * The board's counts without a pass over it: the task count kept on the board's row, the rest
 * counted in the partial index of their state. What this costs grows with the number of tasks in
 * progress, completed and ready to start, never with the pending tasks that wait. $1 board.
 */
export const TASK_COUNTS = `
  SELECT b.task_count::int AS total,
    (SELECT count(*)::int FROM stepwise_tasks WHERE board_id = $1 AND state = 'in_progress') AS in_progress,
    (SELECT count(*)::int FROM stepwise_tasks WHERE board_id = $1 AND state = 'completed') AS completed,
    (SELECT count(*)::int FROM stepwise_tasks WHERE board_id = $1 AND ${IS_READY}) AS ready
  FROM stepwise_task_boards b WHERE b.board_id = $1`;

/** Each view group's rows (by rank), through the partial index that holds exactly them. */
const GROUP_WHERE = ["state = 'in_progress'", IS_READY, IS_WAITING, "state = 'completed'"];

export type TaskViewQuery = {
  /** The page: at most $2 rows of board $1 (owner $3 when filtered), with each row's blockers' states. */
  page: { name: string; text: string; values: unknown[] };
  /** How many tasks match, when the board's counts cannot say (an owner filter). */
  matching?: { text: string; values: unknown[] };
};

/**
 * The page as one statement: each group's first `limit` tasks by id (through its own index, so at
 * most `limit` rows each), then the first `limit` of those by rank and id. Column names are the task
 * table's; `blocker_states` maps each blocker id of the row to its state.
 */
export function taskViewQuery(boardId: string, filter: TaskListFilter, columns: string): TaskViewQuery {
  const groups = viewGroups(filter);
  const owner = filter.owner !== undefined ? " AND owner = $3" : "";
  const values = [boardId, filter.limit, ...(filter.owner !== undefined ? [filter.owner] : [])];
  const name = `stepwise-task-view-${groups.map((group) => group.rank).join("")}${owner ? "-owner" : ""}`;
  if (groups.length === 0) {
    return { page: { name, text: `SELECT ${columns}, NULL::json AS blocker_states FROM stepwise_tasks WHERE false AND board_id = $1 LIMIT $2`, values } };
  }
  const branches = groups.map(
    (group) => `(SELECT ${columns}, ${group.rank} AS rank FROM stepwise_tasks WHERE board_id = $1 AND ${GROUP_WHERE[group.rank]}${owner} ORDER BY id LIMIT $2)`,
  );
  const text = `
    SELECT v.*, (SELECT json_object_agg(b.id, b.state) FROM stepwise_tasks b WHERE b.board_id = $1 AND b.id = ANY (v.blocked_by)) AS blocker_states
    FROM (SELECT * FROM (${branches.join(" UNION ALL ")}) AS groups ORDER BY rank, id LIMIT $2) v ORDER BY v.id`;
  if (filter.owner === undefined) return { page: { name, text, values } };
  const where = groups.map((group) => `(${GROUP_WHERE[group.rank]})`).join(" OR ");
  return {
    page: { name, text, values },
    matching: { text: `SELECT count(*)::int AS n FROM stepwise_tasks WHERE board_id = $1 AND owner = $2 AND (${where})`, values: [boardId, filter.owner] },
  };
}
