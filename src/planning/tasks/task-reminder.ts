import type { Message } from "../../core/messages.js";
import type { Plugin } from "../../core/plugin.js";
import type { TaskBoard } from "./task-board.js";
import { taskReminderNote } from "./task-reminder-note.js";

/**
 * Reminds the model of open work: while the board has pending or in-progress tasks, each model
 * request ends with a one-line note saying how many. The note is ephemeral, never stored in memory.
 */
export class TaskReminder implements Plugin {
  readonly name = "task-reminder";
  readonly #board: TaskBoard;

  constructor(board: TaskBoard) {
    this.#board = board;
  }

  async beforeModel(): Promise<Message[]> {
    const counts = await this.#board.counts();
    if (counts.pending + counts.in_progress === 0) return [];
    return [{ role: "user", content: taskReminderNote({ pending: counts.pending, inProgress: counts.in_progress }) }];
  }
}
