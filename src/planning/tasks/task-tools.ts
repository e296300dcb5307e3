import { z } from "zod";
import { defineTool, ToolError, type Tool } from "../../core/tool.js";
import type { TaskBoard } from "./task-board.js";
import { openBlockers, sortIds } from "./task-graph.js";
import { blockedNote, renderTaskList, stateLookup, TASK_LIST_DEFAULT_LIMIT, taskDetailText, taskLine, taskName, unblockedNote } from "./task-text.js";
import { TASK_CREATE_DESCRIPTION, TASK_GET_DESCRIPTION, TASK_LIST_DESCRIPTION, TASK_UPDATE_DESCRIPTION } from "./task-tool-descriptions.js";
import type { Task, TaskChange } from "./task.js";

// Models often send ids as numbers or copy the "#3" they saw in TaskList; both mean task "3". An
// outside id ("PROJ-1", shown on the task's line) names the task that keeps it.
const taskId = z.union([z.string(), z.number()]).transform((id) => String(id).trim().replace(/^#/, ""));
const metadata = z.record(z.string(), z.unknown());

/** The four tools the model uses to work with `board`. */
export function taskBoardTools(board: TaskBoard): Tool[] {
  const TaskCreate = defineTool({
    name: "TaskCreate",
    description: TASK_CREATE_DESCRIPTION,
    parameters: z.object({
      subject: z.string().trim().min(1).describe("Short imperative title of the task."),
      description: z.string().describe("What has to be done, and what done looks like."),
      metadata: metadata.optional().describe("Optional key/value notes to keep with the task."),
    }),
    execute: async ({ subject, description, metadata }, ctx) => {
      const id = board.takeReservedId(ctx);
      const task = await board.create({ subject, description, ...(metadata ? { metadata } : {}) }, id === undefined ? {} : { id });
      return `Created task #${task.id}: ${task.subject}`;
    },
  });

  const TaskGet = defineTool({
    name: "TaskGet",
    description: TASK_GET_DESCRIPTION,
    parameters: z.object({ task_id: taskId.describe('Id of the task, e.g. "3".') }),
    readOnly: true,
    execute: async ({ task_id }) => {
      const task = await board.find(task_id);
      return taskDetailText(task, stateLookup(await board.getMany([...task.blockedBy, ...task.blocks])));
    },
  });

  const TaskList = defineTool({
    name: "TaskList",
    description: TASK_LIST_DESCRIPTION,
    parameters: z.object({
      status: z.enum(["pending", "in_progress", "completed"]).optional().describe("Only tasks with this status."),
      owner: z.string().trim().min(1).optional().describe("Only tasks owned by this name."),
      ready: z.boolean().optional().describe("true: only tasks free to start (pending, no open blockers, no owner)."),
      limit: z.number().int().min(1).max(500).optional().describe(`At most this many lines (default ${TASK_LIST_DEFAULT_LIMIT}).`),
    }),
    readOnly: true,
    execute: async ({ status, owner, ready, limit }) => {
      const filter = { limit: limit ?? TASK_LIST_DEFAULT_LIMIT, ...(status ? { status } : {}), ...(owner ? { owner } : {}), ...(ready !== undefined ? { ready } : {}) };
      return renderTaskList(await board.listView(filter), filter);
    },
  });

  const TaskUpdate = defineTool({
    name: "TaskUpdate",
    description: TASK_UPDATE_DESCRIPTION,
    parameters: z.object({
      task_id: taskId.describe('Id of the task to change, e.g. "3".'),
      subject: z.string().trim().min(1).optional().describe("New title."),
      description: z.string().optional().describe("New description."),
      status: z.enum(["pending", "in_progress", "completed", "deleted"]).optional(),
      owner: z.string().optional().describe("Who works on the task; an empty string clears it."),
      add_blocks: z.array(taskId).optional().describe("Ids of tasks that must wait for this one."),
      add_blocked_by: z.array(taskId).optional().describe("Ids of tasks that must be completed before this one."),
      metadata: metadata.optional().describe("Keys to merge into the metadata; a null value removes the key."),
    }),
    execute: async (args) => {
      if (args.status === "deleted") {
        const before = await board.find(args.task_id);
        await board.remove(before.id);
        const neighbours = sortIds([...before.blocks, ...before.blockedBy]);
        const cleaned = neighbours.length > 0 ? ` Its dependency links with ${neighbours.map((id) => `#${id}`).join(", ")} were removed.` : "";
        return `Deleted task ${taskName(before)}: ${before.subject}.${cleaned}`;
      }
      const change = toChange({
        ...args,
        add_blocks: await resolveIds(board, args.add_blocks),
        add_blocked_by: await resolveIds(board, args.add_blocked_by),
      });
      if (Object.keys(change).length === 0) {
        throw new ToolError("TaskUpdate changed nothing: give at least one of subject, description, status, owner, add_blocks, add_blocked_by or metadata.");
      }
      const id = await board.resolveId(args.task_id);
      if (change.state !== undefined && change.state !== "completed") {
        const current = await board.find(id);
        // Status moves one way (pending, in progress, completed): a run that finds finished work on
        // the board must not undo it.
        if (current.state === "completed") throw new ToolError(reopenRefusal(current));
        if (change.state === "in_progress" && change.owner === undefined && board.agentName && current.owner === null) change.owner = board.agentName;
      }
      const task = await board.update(id, change);
      return describeUpdate(task, await neighbourhood(board, task, change), change);
    },
  });

  return [TaskCreate, TaskGet, TaskList, TaskUpdate];
}

function reopenRefusal(task: Task): string {
  return (
    `Task ${taskName(task)} (${task.subject}) is already completed, and a completed task is not reopened. ` +
    `If more work is needed, add it with TaskCreate (add_blocked_by ["${task.id}"] if it builds on this one); otherwise pick a pending task from TaskList.`
  );
}

/** Edge ids as the store takes them: outside ids looked up, board ids as they are. */
async function resolveIds(board: TaskBoard, refs: string[] | undefined): Promise<string[] | undefined> {
  return refs && Promise.all(refs.map((ref) => board.resolveId(ref)));
}

/**
 * The tasks describeUpdate reads, fetched by id rather than by loading the board: the task's
 * blockers, and after a completion the tasks it blocks with their own blockers (are they free now?).
 */
async function neighbourhood(board: TaskBoard, task: Task, change: TaskChange): Promise<Task[]> {
  const waiting = change.state === "completed" ? await board.getMany(task.blocks) : [];
  const blockers = await board.getMany(sortIds([...task.blockedBy, ...waiting.flatMap((t) => t.blockedBy)]));
  return [task, ...waiting, ...blockers];
}

type UpdateArgs = {
  subject?: string | undefined;
  description?: string | undefined;
  status?: "pending" | "in_progress" | "completed" | "deleted" | undefined;
  owner?: string | undefined;
  add_blocks?: string[] | undefined;
  add_blocked_by?: string[] | undefined;
  metadata?: Record<string, unknown> | undefined;
};

function toChange(args: UpdateArgs): TaskChange {
  const change: TaskChange = {};
  if (args.subject !== undefined) change.subject = args.subject;
  if (args.description !== undefined) change.description = args.description;
  if (args.status !== undefined && args.status !== "deleted") change.state = args.status;
  if (args.owner !== undefined) change.owner = args.owner.trim() === "" ? null : args.owner.trim();
  if (args.add_blocks?.length) change.addBlocks = args.add_blocks;
  if (args.add_blocked_by?.length) change.addBlockedBy = args.add_blocked_by;
  if (args.metadata !== undefined) change.metadata = args.metadata;
  return change;
}

/** The task as it now stands, plus what the change means for the work: still blocked, or newly freed tasks. */
function describeUpdate(task: Task, tasks: readonly Task[], change: TaskChange): string {
  const stateOf = stateLookup(tasks);
  const lines = [`Updated task ${taskLine(task, stateOf)}`];
  const open = openBlockers(task, stateOf);
  if (task.state === "in_progress" && open.length > 0) lines.push(blockedNote(task, open));
  if (change.state === "completed") {
    const freed = task.blocks.filter((id) => {
      const waiting = tasks.find((candidate) => candidate.id === id);
      return waiting?.state === "pending" && openBlockers(waiting, stateOf).length === 0;
    });
    if (freed.length > 0) lines.push(unblockedNote(freed));
  }
  return lines.join("\n");
}
