import type { TaskStore } from "../planning/tasks/task-store.js";
import { stateLookup, taskDetailText, taskListText } from "../planning/tasks/task-text.js";
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

/** `stepwise tasks list`: one line per task, as the model's TaskList shows them. */
export function tasksList(opts: TasksOptions, out: NodeJS.WritableStream): Promise<void> {
  return withStore(opts, async (store) => {
    out.write(`board ${store.boardId}\n${taskListText(await store.list())}\n`);
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
