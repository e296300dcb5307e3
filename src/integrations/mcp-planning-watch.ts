import type { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import type { TaskBoard } from "../planning/tasks/task-board.js";
import type { TaskBoardChange } from "../planning/tasks/task.js";
import { boardUri, CURRENT_PLAN_URI, planUri, taskUri } from "./mcp-planning-uris.js";

/** The plans and the board an MCP server offers as resources and prompts. */
export interface McpPlanningSources {
  notebook?: PlanNotebook;
  board?: TaskBoard;
}

/** A board store that announces changes made by other processes too (PostgreSQL's LISTEN/NOTIFY). */
type AnnouncingStore = {
  subscribe(listener: (change: TaskBoardChange) => void, opts?: { onError?: (error: Error) => void }): Promise<() => Promise<void>>;
};

function announces(store: unknown): store is AnnouncingStore {
  return typeof (store as Partial<AnnouncingStore>).subscribe === "function";
}

/**
 * Turns changes to a notebook's plans and a board's tasks into the resource URIs they touch, for
 * every MCP session of a server at once. It attaches to the notebook and the board once (plugins
 * keep their hosts for good), and to the store's own announcements when it has them, so a task
 * claimed by another process is reported as well.
 */
export class PlanningWatch {
  readonly sources: McpPlanningSources;
  /** Settles once the store's announcements are being heard (at once for stores without them). */
  readonly ready: Promise<void>;
  readonly #listeners = new Set<(uris: string[]) => void>();
  #stopStore: Promise<(() => Promise<void>) | undefined> = Promise.resolve(undefined);

  constructor(sources: McpPlanningSources) {
    this.sources = sources;
    // The watch attaches as one more host of the plugins: it hears what they emit, and emits nothing.
    sources.notebook?.attach({
      agentName: "mcp",
      emit: (event) => {
        if (event.type === "plan-updated") this.#announce([CURRENT_PLAN_URI, planUri(event.plan.id)]);
      },
      on: () => () => {},
    });
    const board = sources.board;
    this.ready = this.#stopStore.then(() => {});
    if (!board) return;
    // In-process changes arrive through the board's own events; another process's through the store.
    if (announces(board.store)) {
      const store = board.store;
      this.#stopStore = store.subscribe((change) => this.#announceBoard(change), { onError: () => {} }).catch(() => undefined);
      this.ready = this.#stopStore.then(() => {});
    } else {
      board.attach({
        agentName: "mcp",
        emit: (event) => {
          if (event.type === "tasks-updated") this.#announceBoard(event);
        },
        on: () => () => {},
      });
    }
  }

  /** Calls `listener` with the URIs each change touches; returns the unsubscribe function. */
  on(listener: (uris: string[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.#listeners.clear();
    const stop = await this.#stopStore;
    await stop?.().catch(() => {});
  }

  #announceBoard(change: Pick<TaskBoardChange, "boardId" | "taskIds">): void {
    this.#announce([boardUri(change.boardId), ...change.taskIds.map((id) => taskUri(change.boardId, id))]);
  }

  #announce(uris: string[]): void {
    for (const listener of this.#listeners) {
      try {
        listener(uris);
      } catch {
        // One session's broken transport must not stop the others hearing of the change.
      }
    }
  }
}

/**
 * The one watch a server's sessions share: the caller's own, or a new one (closed by `close`),
 * resolved once it hears the store, so no subscriber misses a change made right after start.
 */
export async function sharedPlanningWatch(
  planning: McpPlanningSources | PlanningWatch | undefined,
): Promise<{ watch: PlanningWatch | undefined; close: () => Promise<void> }> {
  if (!planning) return { watch: undefined, close: async () => {} };
  const owned = !(planning instanceof PlanningWatch);
  const watch = planning instanceof PlanningWatch ? planning : new PlanningWatch(planning);
  await watch.ready;
  return { watch, close: owned ? () => watch.close() : async () => {} };
}
