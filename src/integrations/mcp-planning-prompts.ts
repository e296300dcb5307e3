import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import type { PlanNotebook } from "../planning/notebook/plan-notebook.js";
import type { TaskBoard } from "../planning/tasks/task-board.js";
import type { McpPlanningSources } from "./mcp-planning-watch.js";

const COMPLETIONS = 100;

/**
 * Prompts an MCP client offers its user as commands: plan a task with the notebook, continue a plan,
 * work through a board. Their arguments complete from the plans and boards the server holds.
 */
export function registerPlanningPrompts(server: McpServer, sources: McpPlanningSources): void {
  if (sources.notebook) registerNotebookPrompts(server, sources.notebook);
  if (sources.board) registerBoardPrompt(server, sources.board);
}

function registerNotebookPrompts(server: McpServer, notebook: PlanNotebook): void {
  server.registerPrompt(
    "plan_task",
    {
      title: "Plan a task",
      description: "Break a task into a plan with create_plan, then carry it out subtask by subtask.",
      argsSchema: { task: z.string().describe("What should be done") },
    },
    ({ task }) =>
      userMessage(
        [
          `Task: ${task}`,
          "",
          "First call create_plan with a name, a description, the expected outcome and a short list of subtasks, each with its own expected outcome.",
          "Then work through the subtasks in order: update_subtask_state to start one, finish_subtask with what it produced, revise_current_plan when you learn the plan is wrong.",
          "End with finish_plan and a summary for me.",
        ].join("\n"),
      ),
  );
  const planIds = async () => [...(notebook.currentPlan ? [notebook.currentPlan] : []), ...(await notebook.historicalPlans())].map((plan) => plan.id);
  server.registerPrompt(
    "continue_plan",
    {
      title: "Continue a plan",
      description: "Pick up the current plan (or an archived one, by id) where it stands.",
      argsSchema: {
        plan_id: completable(z.string().optional().describe("An archived plan to recover; empty for the current plan"), async (value) =>
          (await planIds())
            .filter((id) => id.startsWith(value ?? ""))
            .slice(0, COMPLETIONS),
        ),
      },
    },
    async ({ plan_id: planId }) => {
      await notebook.ready();
      const plan = planId ? (await notebook.historicalPlans()).find((p) => p.id === planId) ?? notebook.currentPlan : notebook.currentPlan;
      if (!plan) return userMessage("There is no plan yet. Ask me what to do, then make one with create_plan.");
      const recover = planId && plan.id === planId && notebook.currentPlan?.id !== planId ? `First call recover_historical_plan with plan_id "${planId}".\n` : "";
      return userMessage(`${recover}Continue this plan from where it stands; start with the first subtask that is not done.\n\n${plan.toMarkdown(true)}`);
    },
  );
}

function registerBoardPrompt(server: McpServer, board: TaskBoard): void {
  const boardId = board.store.boardId;
  server.registerPrompt(
    "work_board",
    {
      title: "Work through the board",
      description: "Claim ready tasks of the shared board one at a time and complete them.",
      argsSchema: {
        board: completable(z.string().describe("The board"), (value) => [boardId].filter((id) => id.startsWith(value ?? ""))),
      },
    },
    async ({ board: requested }) => {
      const counts = await board.store.counts();
      const note = requested === boardId ? "" : ` (this server holds board "${boardId}", not "${requested}")`;
      return userMessage(
        [
          `Work through task board "${boardId}"${note}: ${counts.pending} pending, ${counts.in_progress} in progress, ${counts.completed} completed.`,
          "Call TaskList, pick a pending task whose blockers are all completed, set it in_progress with yourself as owner, do it, then mark it completed. Repeat until no task is ready, then tell me what is left.",
        ].join("\n"),
      );
    },
  );
}

function userMessage(text: string): GetPromptResult {
  return { messages: [{ role: "user", content: { type: "text", text } }] };
}
