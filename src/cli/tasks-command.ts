import type { TaskStore } from "../planning/tasks/task-store.js";
import type { TaskState } from "../planning/tasks/task.js";
import { stateLookup, TASK_LIST_DEFAULT_LIMIT, taskDetailText, taskListView } from "../planning/tasks/task-text.js";
import { checkTaskStore, type RunStores } from "../runs/run-stores.js";
import { CliError } from "./cli-error.js";
import { openCliStores } from "./run-command.js";

export type TasksOptions = { database: string; store?: string; board?: string };

const NO_BOARD = 'No task board yet: the store is empty. Run: stepwise run "<task>" --strategy tasks';

/** The board to read: --board, else the latest tasks run's board in the store; undefined when there is none. */
async function boardFor(opts: TasksOptions, stores: RunStores): Promise<string | undefined> {
  if (opts.board) return opts.board;
  return (await stores.runs.listRuns(1000)).find((r) => r.strategy === "tasks")?.id;
}

async function withStore<T>(opts: TasksOptions, use: (store: TaskStore) => Promise<T>, noBoard: () => T): Promise<T> {
  // On a shared store the latest board may be anyone's.
  if (!opts.board && opts.store && opts.store !== "sqlite") throw new CliError("name the shared board to read with --board <id>");
  const stores = await openCliStores(opts);
  try {
    const boardId = await boardFor(opts, stores);
    if (boardId === undefined) return noBoard();
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

export type TasksListOptions = TasksOptions & { status?: TaskState; owner?: string; ready?: boolean; limit?: number };

/**
 * `stepwise tasks list`: the view the model's TaskList gives, with the same filters: a summary line,
 * open work first, and at most `limit` tasks, saying how many were left out, however large the board.
 */
export function tasksList(opts: TasksListOptions, out: NodeJS.WritableStream): Promise<void> {
  return withStore(opts, async (store) => {
    const view = taskListView(await store.list(), {
      limit: opts.limit ?? TASK_LIST_DEFAULT_LIMIT,
      ...(opts.status ? { status: opts.status } : {}),
      ...(opts.owner ? { owner: opts.owner } : {}),
      ...(opts.ready ? { ready: true } : {}),
    });
    out.write(`board ${store.boardId}\n${view}\n`);
  }, () => void out.write(`${NO_BOARD}\n`));
}

/** `stepwise tasks show <id>`: everything about one task. */
export function tasksShow(opts: TasksOptions, id: string, out: NodeJS.WritableStream): Promise<void> {
  return withStore(opts, async (store) => {
    const tasks = await store.list();
    const task = tasks.find((t) => t.id === id.replace(/^#/, ""));
    if (!task) throw new CliError(`no task "${id}" on board ${store.boardId}; list them with: stepwise tasks list`);
    out.write(`${taskDetailText(task, stateLookup(tasks))}\n`);
  }, () => {
    throw new CliError(`no task "${id}": ${NO_BOARD}`);
  });
}
