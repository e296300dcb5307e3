import { z } from "zod";
import { Agent, type AgentOptions } from "../../core/agent.js";
import type { AgentEventListener } from "../../core/events.js";
import type { ChatModel } from "../../core/model.js";
import { PluginHosts, type Plugin, type PluginHost } from "../../core/plugin.js";
import { defineTool, type Tool } from "../../core/tool.js";
import { readJsonReply } from "./json-reply.js";
import {
  PLAN_TOOL_DESCRIPTION,
  PLAN_TOOL_NAME,
  planResultsText,
  plannerSystemPrompt,
  planRetryNote,
  SUBTASK_SYSTEM_PROMPT,
  subtaskInput,
} from "./plan-tool-prompts.js";
import { runSubAgent, type SubAgentOutcome } from "./sub-agent.js";
import { listenerSink, WorkflowRecorder, type WorkflowEventSink } from "./workflow-recorder.js";
import type { Workflow, WorkflowResult, WorkflowRunOptions } from "./workflow-trace.js";

export interface PlanToolOptions {
  /** Plans and executes unless `plannerModel` / `executorModel` say otherwise. */
  model: ChatModel;
  plannerModel?: ChatModel;
  executorModel?: ChatModel;
  /** The tools subtasks run with. The planner only receives those with `readOnly: true`. */
  tools: Tool[];
  maxSubtasks?: number;
  plannerMaxSteps?: number;
  executorMaxSteps?: number;
  /** Receives the workflow's events; agents the plugin is given to receive them too. */
  onEvent?: AgentEventListener;
}

const DEFAULT_MAX_SUBTASKS = 8;

/**
 * The `plan` tool, as a plugin: the agent decides when a task deserves a plan. A planner holding only
 * read-only tools writes `{"subtasks": [...]}`; each subtask then runs in a fresh sub-agent with the
 * working tools but never the plan tool, so planning cannot recurse.
 */
export class PlanTool implements Plugin, Workflow {
  readonly name = "plan-tool";
  readonly tool: Tool;
  readonly #opts: PlanToolOptions;
  readonly #plannerTools: Tool[];
  readonly #executorTools: Tool[];
  readonly #maxSubtasks: number;
  readonly #hosts = new PluginHosts();
  readonly #toListener: WorkflowEventSink;

  constructor(opts: PlanToolOptions) {
    this.#opts = opts;
    this.#maxSubtasks = opts.maxSubtasks ?? DEFAULT_MAX_SUBTASKS;
    this.#executorTools = opts.tools.filter((tool) => tool.name !== PLAN_TOOL_NAME);
    this.#plannerTools = this.#executorTools.filter((tool) => tool.readOnly);
    this.#toListener = listenerSink(this.name, opts.onEvent);
    this.tool = defineTool({
      name: PLAN_TOOL_NAME,
      description: PLAN_TOOL_DESCRIPTION,
      parameters: z.object({ task: z.string().min(1).describe("The whole task to plan and carry out, in full.") }),
      execute: async ({ task }, ctx) => (await this.run(task, ctx.signal ? { signal: ctx.signal } : {})).answer,
    });
  }

  tools(): Tool[] {
    return [this.tool];
  }

  attach(host: PluginHost): void {
    this.#hosts.add(host);
  }

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowResult> {
    const recorder = new WorkflowRecorder("plan-tool", task, (event) => {
      this.#toListener(event);
      this.#hosts.emit(event);
    });
    const planStarted = performance.now();
    const { subtasks, errors } = await this.#plan(task, opts.signal);
    const fallback = subtasks === undefined;
    const plan = subtasks ?? [task];
    recorder.planned({
      steps: plan.map((description, i) => ({ id: String(i + 1), description, dependsOn: i > 0 ? [String(i)] : [] })),
      errors,
      fallback,
      durationMs: performance.now() - planStarted,
    });

    const results: string[] = [];
    for (const [index, description] of plan.entries()) {
      const end = recorder.stepStarted(1, { id: String(index + 1), description, dependsOn: index > 0 ? [String(index)] : [] });
      const outcome = await this.#execute(task, plan, index, results, opts.signal);
      end(outcome.text, outcome.isError);
      results.push(outcome.isError ? `Error: ${outcome.text}` : outcome.text);
    }
    return recorder.finish(planResultsText(results));
  }

  /** Plans with one retry after unusable output; `subtasks` is undefined when both attempts failed. */
  async #plan(task: string, signal: AbortSignal | undefined): Promise<{ subtasks?: string[]; errors: string[] }> {
    const planner = new Agent({
      name: "planner",
      model: this.#opts.plannerModel ?? this.#opts.model,
      systemPrompt: plannerSystemPrompt(this.#maxSubtasks),
      tools: this.#plannerTools,
      ...(this.#opts.plannerMaxSteps ? { maxSteps: this.#opts.plannerMaxSteps } : {}),
    });
    const schema = z.object({ subtasks: z.array(z.string().trim().min(1)).min(1).max(this.#maxSubtasks) });
    const errors: string[] = [];
    let input = `Task: ${task}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await planner.run(input, signal ? { signal } : {});
      const read = readJsonReply(result.text, schema);
      if ("data" in read) return { subtasks: read.data.subtasks, errors };
      errors.push(read.error);
      input = planRetryNote(read.error);
    }
    return { errors };
  }

  #execute(task: string, plan: string[], index: number, results: string[], signal: AbortSignal | undefined): Promise<SubAgentOutcome> {
    const agent: AgentOptions = {
      name: `subtask-${index + 1}`,
      model: this.#opts.executorModel ?? this.#opts.model,
      systemPrompt: SUBTASK_SYSTEM_PROMPT,
      tools: this.#executorTools,
      ...(this.#opts.executorMaxSteps ? { maxSteps: this.#opts.executorMaxSteps } : {}),
    };
    return runSubAgent(agent, subtaskInput(task, plan, index, results), signal);
  }
}
