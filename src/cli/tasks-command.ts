import type { TaskBoardSummary, TaskStore } from "../planning/tasks/task-store.js";
import type { TaskState } from "../planning/tasks/task.js";
import { stateLookup, TASK_LIST_DEFAULT_LIMIT, taskDetailText, taskListView } from "../planning/tasks/task-text.js";
import type { RunSettings } from "../runs/run-settings.js";
import { checkTaskStore, type StoreSet } from "../runs/store-set.js";
import { CliError } from "./cli-error.js";
import { openCliStores } from "./run-command.js";

export type TasksOptions = { database: string; store?: string; board?: string };

/** Boards a refusal names. */
const BOARDS_NAMED = 10;

/** `stepwise tasks boards`: every board in the store, with how many tasks it holds in each state. */
export async function tasksBoards(opts: Omit<TasksOptions, "board">, out: NodeJS.WritableStream): Promise<void> {
  const stores = await openCliStores({ ...opts, mustExist: true });
  try {
    const boards = await stores.boards();
    if (boards.length === 0) out.write(`No task boards in the store ${stores.location} yet. Run: stepwise run "<task>" --strategy tasks\n`);
    for (const board of boards) out.write(`${board.boardId}  ${boardCounts(board)}\n`);
  } finally {
    await stores.close();
  }
}

function boardCounts({ counts }: TaskBoardSummary): string {
  const total = counts.pending + counts.in_progress + counts.completed;
  return `${total} task${total === 1 ? "" : "s"}: ${counts.pending} pending, ${counts.in_progress} in progress, ${counts.completed} completed`;
}

function boardList(boards: readonly TaskBoardSummary[]): string {
  const named = boards.slice(0, BOARDS_NAMED).map((board) => `${board.boardId} (${boardCounts(board)})`);
  return [...named, ...(boards.length > BOARDS_NAMED ? [`${boards.length - BOARDS_NAMED} more (stepwise tasks boards)`] : [])].join("; ");
}

/**
 * The board to read: --board (its id, or a unique start of it), else on the SQLite file the latest
 * tasks run's board, else the only board there is. Undefined when the store has none; a board that
 * is not there, or a choice among several, is refused naming the boards that exist.
 */
async function boardFor(opts: TasksOptions, stores: StoreSet): Promise<string | undefined> {
  const boards = await stores.boards();
  const where = `the store ${stores.location}`;
  if (opts.board !== undefined) {
    const wanted = opts.board;
    if (boards.some((board) => board.boardId === wanted)) return wanted;
    const starting = boards.filter((board) => board.boardId.startsWith(wanted));
    if (starting.length === 1) return starting[0]!.boardId;
    if (boards.length === 0) throw new CliError(`there is no board ${wanted} in ${where}, which has no boards yet`);
    throw new CliError(`there is no board ${wanted} in ${where}; ${starting.length > 1 ? `it is the start of ${boardList(starting)}` : `its boards: ${boardList(boards)}`}`);
  }
  if (boards.length === 0) return undefined;
  // On a shared store the latest run may be anyone's; on this machine's file it is the user's own.
  if (!opts.store || opts.store === "sqlite") {
    for (const run of await stores.runs.listRuns(1000)) {
      if (run.strategy !== "tasks") continue;
      const settings = (await stores.runs.loadSettings(run.id)) as Partial<RunSettings> | undefined;
      const boardId = settings?.board ?? run.id;
      if (boards.some((board) => board.boardId === boardId)) return boardId;
    }
  }
  if (boards.length === 1) return boards[0]!.boardId;
  throw new CliError(`name the board to read with --board <id>; ${where} has ${boards.length}: ${boardList(boards)}`);
}

async function withBoard<T>(opts: TasksOptions, use: (store: TaskStore) => Promise<T>, noBoard: (location: string) => T): Promise<T> {
  const stores = await openCliStores({ ...opts, mustExist: true });
  try {
    const boardId = await boardFor(opts, stores);
    if (boardId === undefined) return noBoard(stores.location);
    const store = stores.board(boardId);
    try {
      await checkTaskStore(store, stores.location);
      return await use(store);
    } finally {
      await store.close().catch(() => undefined);
    }
  } finally {
    await stores.close();
  }
}

const noBoardText = (location: string) => `No task board yet in the store ${location}. Run: stepwise run "<task>" --strategy tasks`;

export type TasksListOptions = TasksOptions & { status?: TaskState; owner?: string; ready?: boolean; limit?: number };

/**
 * `stepwise tasks list`: the view the model's TaskList gives, with the same filters: a summary line,
 * open work first, and at most `limit` tasks, saying how many were left out, however large the board.
 */
export function tasksList(opts: TasksListOptions, out: NodeJS.WritableStream): Promise<void> {
  return withBoard(
    opts,
    async (store) => {
      const view = taskListView(await store.list(), {
        limit: opts.limit ?? TASK_LIST_DEFAULT_LIMIT,
        ...(opts.status ? { status: opts.status } : {}),
        ...(opts.owner ? { owner: opts.owner } : {}),
        ...(opts.ready ? { ready: true } : {}),
      });
      out.write(`board ${store.boardId}\n${view}\n`);
    },
    (location) => void out.write(`${noBoardText(location)}\n`),
  );
}

/** `stepwise tasks show <id>`: everything about one task. */
export function tasksShow(opts: TasksOptions, id: string, out: NodeJS.WritableStream): Promise<void> {
  return withBoard(
    opts,
    async (store) => {
      const tasks = await store.list();
      const task = tasks.find((t) => t.id === id.replace(/^#/, ""));
      if (!task) throw new CliError(`no task "${id}" on board ${store.boardId}; list them with: stepwise tasks list --board ${store.boardId}`);
      out.write(`${taskDetailText(task, stateLookup(tasks))}\n`);
    },
    (location) => {
      throw new CliError(`no task "${id}": ${noBoardText(location)}`);
    },
  );
}
