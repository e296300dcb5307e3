import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError, SubscribeRequestSchema, UnsubscribeRequestSchema, type ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import type { Plan } from "../planning/notebook/plan.js";
import type { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import type { TaskBoard } from "../planning/tasks/task-board.js";
import type { Task } from "../planning/tasks/task.js";
import { stateLookup, taskDetailText, taskListText } from "../planning/tasks/task-text.js";
import { BOARD_TEMPLATE, boardUri, CURRENT_PLAN_URI, PLAN_TEMPLATE, planUri, TASK_TEMPLATE, taskUri } from "./mcp-planning-uris.js";
import type { PlanningWatch } from "./mcp-planning-watch.js";

// A resource list is for people picking one: past this many, the board's own resource lists the rest.
const MAX_LISTED_TASKS = 200;
const COMPLETIONS = 100;

/**
 * Offers the notebook's plans and the board's tasks as MCP resources, each as markdown (what a person
 * or a model reads) and JSON (what a program reads), with templates whose variables complete, and
 * `notifications/resources/updated` for the URIs a session subscribed to.
 */
export function registerPlanningResources(server: McpServer, watch: PlanningWatch): void {
  const { notebook, board } = watch.sources;
  if (notebook) registerPlans(server, notebook);
  if (board) registerBoard(server, board);
  if (notebook || board) registerSubscriptions(server, watch);
}

function registerPlans(server: McpServer, notebook: PlanNotebook): void {
  server.registerResource(
    "current-plan",
    CURRENT_PLAN_URI,
    { title: "Current plan", description: "The plan being worked on, with each subtask's state.", mimeType: "text/markdown" },
    async (uri) => {
      await notebook.ready();
      const plan = notebook.currentPlan;
      return plan ? planContents(uri.href, plan) : { contents: [{ uri: uri.href, mimeType: "text/markdown", text: "There is no current plan." }] };
    },
  );
  const allPlans = async () => {
    const archived = await notebook.historicalPlans();
    return [...(notebook.currentPlan ? [notebook.currentPlan] : []), ...archived];
  };
  server.registerResource(
    "plan",
    new ResourceTemplate(PLAN_TEMPLATE, {
      list: async () => ({
        resources: (await allPlans()).map((plan) => ({ uri: planUri(plan.id), name: plan.name, description: `${plan.state} plan`, mimeType: "text/markdown" })),
      }),
      complete: { id: async (value) => completions((await allPlans()).map((plan) => plan.id), value) },
    }),
    { title: "Plan by id", description: "A current or archived plan.", mimeType: "text/markdown" },
    async (uri, { id }) => {
      const plan = (await allPlans()).find((p) => p.id === String(id));
      if (!plan) throw notFound(uri.href, `no plan has id "${String(id)}"`);
      return planContents(uri.href, plan);
    },
  );
}

function registerBoard(server: McpServer, board: TaskBoard): void {
  const boardId = board.store.boardId;
  server.registerResource(
    "board",
    new ResourceTemplate(BOARD_TEMPLATE, {
      list: () => ({ resources: [{ uri: boardUri(boardId), name: `Board ${boardId}`, mimeType: "text/markdown" }] }),
      complete: { board: (value) => completions([boardId], value) },
    }),
    { title: "Task board", description: "Every task of a board with its state, owner and dependencies.", mimeType: "text/markdown" },
    async (uri, { board: requested }) => {
      if (String(requested) !== boardId) throw notFound(uri.href, `this server offers board "${boardId}" only`);
      const tasks = await board.store.list();
      return twoForms(uri.href, taskListText(tasks), { boardId, counts: await board.store.counts(), tasks });
    },
  );
  server.registerResource(
    "task",
    new ResourceTemplate(TASK_TEMPLATE, {
      list: async () => ({ resources: (await board.store.list()).slice(0, MAX_LISTED_TASKS).map((task) => taskResource(boardId, task)) }),
      complete: {
        board: (value) => completions([boardId], value),
        id: async (value) => completions((await board.store.list()).map((task) => task.id), value),
      },
    }),
    { title: "Task", description: "One task of a board.", mimeType: "text/markdown" },
    async (uri, { board: requested, id }) => {
      if (String(requested) !== boardId) throw notFound(uri.href, `this server offers board "${boardId}" only`);
      const tasks = await board.store.list();
      const task = tasks.find((t) => t.id === String(id));
      if (!task) throw notFound(uri.href, `board "${boardId}" has no task ${String(id)}`);
      return twoForms(uri.href, taskDetailText(task, stateLookup(tasks)), task);
    },
  );
}

/** Subscriptions are per session: this server object serves one. */
function registerSubscriptions(server: McpServer, watch: PlanningWatch): void {
  const subscribed = new Set<string>();
  server.server.registerCapabilities({ resources: { subscribe: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscribed.add(request.params.uri);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(request.params.uri);
    return {};
  });
  const stop = watch.on((uris) => {
    for (const uri of uris) {
      if (subscribed.has(uri)) void server.server.sendResourceUpdated({ uri }).catch(() => {});
    }
  });
  const previous = server.server.onclose;
  server.server.onclose = () => {
    stop();
    previous?.();
  };
}

function planContents(uri: string, plan: Plan): ReadResourceResult {
  return twoForms(uri, plan.toMarkdown(true), plan.toJSON());
}

function twoForms(uri: string, markdown: string, json: unknown): ReadResourceResult {
  return {
    contents: [
      { uri, mimeType: "text/markdown", text: markdown },
      { uri, mimeType: "application/json", text: JSON.stringify(json, null, 2) },
    ],
  };
}

function taskResource(boardId: string, task: Task) {
  return { uri: taskUri(boardId, task.id), name: `#${task.id} ${task.subject}`, description: task.state, mimeType: "text/markdown" };
}

function completions(values: readonly string[], prefix: string | undefined): string[] {
  return values.filter((value) => value.startsWith(prefix ?? "")).slice(0, COMPLETIONS);
}

function notFound(uri: string, reason: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Resource ${uri} not found: ${reason}.`);
}
