import { z } from "zod";
import { Agent, type AgentOptions } from "../../core/agent.js";
import type { AgentEventListener } from "../../core/events.js";
import type { ChatModel } from "../../core/model.js";
import { PluginHosts, type Plugin, type PluginHost } from "../../core/plugin.js";
import { defineTool, type Tool } from "../../core/tool.js";
import { readJsonReply } from "./json-reply.js";
import { planWithReview, type PlanApprover, type PlannerAttempt } from "./plan-approval.js";
import { planReviewNote } from "./plan-approval-prompts.js";
import {
  PLAN_TOOL_DESCRIPTION,
  PLAN_TOOL_NAME,
  planRejectedNote,
  planRejectedResult,
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
  /**
   * Asks the user about the subtasks before any runs: approve them, edit them (the edited ones run, and
   * the helpers and the calling agent are told what changed) or reject them with feedback (the planner
   * tries once more; a second rejection runs nothing).
   */
  approvePlan?: PlanApprover;
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
      execute: async ({ task }, ctx) => {
        const parent = ctx.runId !== undefined ? { runId: ctx.runId, agent: ctx.agentName ?? "", ...(ctx.toolCallId ? { toolCallId: ctx.toolCallId } : {}) } : undefined;
        return (await this.run(task, { ...(ctx.signal ? { signal: ctx.signal } : {}), ...(parent ? { parent } : {}) })).answer;
      },
    });
  }

  tools(): Tool[] {
    return [this.tool];
  }

  attach(host: PluginHost): void {
    this.#hosts.add(host);
  }

  async run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowResult> {
    const { signal } = opts;
    const recorder = new WorkflowRecorder(
      "plan-tool",
      task,
      (event) => {
        this.#toListener(event);
        this.#hosts.emit(event);
      },
      { name: this.name, parent: opts.parent },
    );
    const planner = this.#planner();
    planner.on((event) => recorder.emit(event));
    const planned = await planWithReview({
      workflow: "plan-tool",
      task,
      approve: this.#opts.approvePlan,
      emit: (event) => recorder.emit(event),
      plan: (rejection) =>
        this.#plan(planner, rejection ? planRejectedNote(rejection.steps, rejection.feedback) : `Task: ${task}`, signal, recorder),
    });
    const { steps: plan, review } = planned;
    recorder.planned({
      ...planned,
      steps: plan.map((description, i) => ({ id: String(i + 1), description, dependsOn: i > 0 ? [String(i)] : [] })),
    });
    if (review?.decision.action === "reject") return recorder.finish(planRejectedResult(review));

    const note = review ? planReviewNote(review) : null;
    const results: string[] = [];
    for (const [index, description] of plan.entries()) {
      const end = recorder.stepStarted(1, { id: String(index + 1), description, dependsOn: index > 0 ? [String(index)] : [] });
      const outcome = await this.#execute(subtaskInput(task, plan, index, results, note), index, signal, recorder);
      end(outcome.text, outcome.isError);
      results.push(outcome.isError ? `Error: ${outcome.text}` : outcome.text);
    }
    return recorder.finish(planResultsText(results, note));
  }

  #planner(): Agent {
    return new Agent({
      name: "planner",
      model: this.#opts.plannerModel ?? this.#opts.model,
      systemPrompt: plannerSystemPrompt(this.#maxSubtasks),
      tools: this.#plannerTools,
      ...(this.#opts.plannerMaxSteps ? { maxSteps: this.#opts.plannerMaxSteps } : {}),
    });
  }

  /** Asks the planner (which remembers earlier rounds) for subtasks, with one retry after unusable output. */
  async #plan(planner: Agent, input: string, signal: AbortSignal | undefined, recorder: WorkflowRecorder): Promise<PlannerAttempt> {
    recorder.planningStarted();
    const started = performance.now();
    const schema = z.object({ subtasks: z.array(z.string().trim().min(1)).min(1).max(this.#maxSubtasks) });
    const errors: string[] = [];
    let message = input;
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await planner.run(message, { parent: recorder.childOf(), ...(signal ? { signal } : {}) });
      const read = readJsonReply(result.text, schema);
      if ("data" in read) return { steps: read.data.subtasks, errors, durationMs: performance.now() - started };
      errors.push(read.error);
      message = planRetryNote(read.error);
    }
    return { errors, durationMs: performance.now() - started };
  }

  #execute(input: string, index: number, signal: AbortSignal | undefined, recorder: WorkflowRecorder): Promise<SubAgentOutcome> {
    const agent: AgentOptions = {
      name: `subtask-${index + 1}`,
      model: this.#opts.executorModel ?? this.#opts.model,
      systemPrompt: SUBTASK_SYSTEM_PROMPT,
      tools: this.#executorTools,
      ...(this.#opts.executorMaxSteps ? { maxSteps: this.#opts.executorMaxSteps } : {}),
    };
    return runSubAgent(agent, input, signal, recorder.link(String(index + 1)));
  }
}
