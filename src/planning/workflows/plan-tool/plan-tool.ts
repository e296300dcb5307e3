import { z } from "zod";
import { Agent, type AgentOptions } from "../../../core/agent.js";
import type { AgentState } from "../../../core/state.js";
import type { AgentEventListener, EventParent } from "../../../core/events.js";
import type { PermissionPolicy } from "../../../core/permissions.js";
import type { ApprovalDecision, ApprovalDecisions } from "../../../core/approval.js";
import { PluginHosts, type AfterModelContext, type AfterToolContext, type Plugin, type PluginHost } from "../../../core/plugin.js";
import { defineTool, ToolError, ToolPause, type Tool, type ToolContext } from "../../../core/tool.js";
import { readJsonReply } from "../json-reply.js";
import type { PlanReview } from "../plan-review.js";
import {
  PLAN_TOOL_DESCRIPTION,
  PLAN_TOOL_NAME,
  PLAN_TOOL_STEPS_NOTE,
  planRejectedNote,
  planRejectedResult,
  planResultsText,
  plannerSystemPrompt,
  planRetryNote,
  SUBTASK_SYSTEM_PROMPT,
  subtaskInput,
} from "./plan-tool-prompts.js";
import { runStepAgent, type HeldAgent, type StepAgentOutcome } from "../sub-agent.js";
import { roleModel, type WorkflowModels } from "../workflow-models.js";
import { WorkflowRun } from "../workflow-run.js";
import type { Workflow, WorkflowOutcome, WorkflowRunOptions, WorkflowState } from "../workflow.js";

/** `model` plans and executes the subtasks; `plannerModel` and `executorModel` take over one role (see WorkflowModels). */
export interface PlanToolOptions extends WorkflowModels<"planner" | "executor"> {
  /** The tools subtasks run with. The planner only receives those with `readOnly: true`. */
  tools: Tool[];
  maxSubtasks?: number;
  plannerMaxSteps?: number;
  executorMaxSteps?: number;
  /** Receives the workflow's events; agents the plugin is given to receive them too. */
  onEvent?: AgentEventListener;
  /**
   * Puts the subtasks before the user before any runs: `run` pauses with stopReason
   * "awaiting-user" and a pending call of kind "plan", and `run(task, { state, decisions })` goes
   * on. Approve them, edit them (the edited ones run, and the helpers and the calling agent are told
   * what changed) or reject them with a reason (the planner tries once more; a second rejection runs
   * nothing). As the plan tool inside an agent, the agent's run pauses instead, on the plan call
   * (kind "approval"), whose arguments then hold the subtasks as `steps`: edit those to change them.
   */
  approvePlans?: boolean;
  /**
   * Which of the subtask agents' tool calls run, wait for the user or are refused (see Agent). A call
   * that waits pauses `run` (stopReason "awaiting-user", the subtask agent's pending calls), and
   * `run(task, { state, decisions })` hands the decisions to that agent, which goes on with its own
   * resume. Finished subtasks are never run again. As the plan tool inside an agent, the agent's run
   * pauses instead, with the subtask's calls pending (see ToolPause), and `agent.resume` goes on.
   */
  permissions?: PermissionPolicy;
}

const DEFAULT_MAX_SUBTASKS = 8;

export const PLAN_TOOL_STATE_VERSION = 1;

/** What an agent's saved state holds for the plan tool: the plan runs waiting for approval, by call id. */
export type PlanToolState = { version: number; proposals: Record<string, WorkflowState> };

type Planned = { steps: string[]; errors: string[]; fallback: boolean; durationMs: number };

/** What a checkpoint holds of a plan-tool run. */
type Progress = {
  /** The planner agent's saved state: it remembers rejected plans. */
  planner: AgentState | null;
  /** The subtasks settled on, once the plan is made (and approved, when asked). */
  plan: string[] | null;
  results: string[];
  /** The current subtask's agent, stopped for the user. */
  agent?: HeldAgent;
};

type Run = WorkflowRun<Progress, Omit<Planned, "steps">>;

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
  /** Inside an agent, plans wait for the user by pausing the agent's run on the plan call. */
  readonly #pausesAgent: boolean;
  /** Plan runs paused for the agent's approval, by the id of the plan call that waits. */
  #proposals = new Map<string, WorkflowState>();

  constructor(opts: PlanToolOptions) {
    this.#opts = opts;
    this.#maxSubtasks = opts.maxSubtasks ?? DEFAULT_MAX_SUBTASKS;
    this.#executorTools = opts.tools.filter((tool) => tool.name !== PLAN_TOOL_NAME);
    this.#plannerTools = this.#executorTools.filter((tool) => tool.readOnly);
    this.#pausesAgent = opts.approvePlans === true;
    const task = z.string().min(1).describe("The whole task to plan and carry out, in full.");
    const execute = async (args: { task: string; steps?: string[] | undefined }, ctx: ToolContext) => {
      const outcome = ctx.resumed
        ? await this.#goOn(ctx.resumed.state as WorkflowState, ctx.resumed.decisions, ctx)
        : this.#pausesAgent
          ? await this.#runApproved(args.steps, ctx)
          : await this.run(args.task, { ...(ctx.signal ? { signal: ctx.signal } : {}), ...callParent(ctx.runId, ctx.agentName, ctx.toolCallId) });
      // A subtask's call waits for the user: the calling agent's run pauses on it, and calls again once it is decided.
      if (outcome.stopReason === "awaiting-user") throw new ToolPause(outcome.pending ?? [], outcome.state);
      return outcome.answer;
    };
    this.tool = this.#pausesAgent
      ? defineTool({
          name: PLAN_TOOL_NAME,
          description: PLAN_TOOL_DESCRIPTION,
          parameters: z.object({ task, steps: z.array(z.string()).optional().describe(PLAN_TOOL_STEPS_NOTE) }),
          requiresApproval: true,
          explainsEdits: true,
          execute,
        })
      : defineTool({ name: PLAN_TOOL_NAME, description: PLAN_TOOL_DESCRIPTION, parameters: z.object({ task }), execute });
  }

  tools(): Tool[] {
    return [this.tool];
  }

  attach(host: PluginHost): void {
    this.#hosts.add(host);
  }

  /**
   * With `approvePlans` inside an agent: plans each plan call before the agent decides about it and
   * puts the subtasks in the call, so the agent pauses on the plan itself (approve, edit the steps,
   * or reject, which tells the calling model why).
   */
  async afterModel(ctx: AfterModelContext): Promise<void> {
    if (!this.#pausesAgent) return;
    for (const call of ctx.toolCalls) {
      if (call.name !== PLAN_TOOL_NAME || this.tool.check?.(call.arguments)) continue;
      const { task } = JSON.parse(call.arguments) as { task: string };
      const outcome = await this.#session(task, { ...(ctx.signal ? { signal: ctx.signal } : {}), ...callParent(ctx.runId, ctx.agentName, call.id) });
      const pending = outcome.pending?.[0];
      if (!pending) continue;
      this.#proposals.set(call.id, outcome.state);
      const { steps } = JSON.parse(pending.arguments) as { steps: string[] };
      ctx.rewrite(call.id, { arguments: JSON.stringify({ task, steps }) });
    }
  }

  afterTool(ctx: AfterToolContext): void {
    // A rejected plan call never runs: its paused plan is dropped.
    if (ctx.refused) this.#proposals.delete(ctx.call.id);
  }

  saveState(): PlanToolState {
    return { version: PLAN_TOOL_STATE_VERSION, proposals: Object.fromEntries(structuredClone([...this.#proposals])) };
  }

  loadState(state: unknown): void {
    const saved = state as Partial<PlanToolState> | null;
    if (typeof saved !== "object" || saved === null || typeof saved.proposals !== "object" || saved.proposals === null) {
      throw new Error("PlanTool.loadState expects what saveState returned: { version, proposals }.");
    }
    this.#proposals = new Map(Object.entries(structuredClone(saved.proposals)));
  }

  /** Runs the plan the user approved, or edited into `steps`, for this call. */
  #runApproved(steps: string[] | undefined, ctx: ToolContext): Promise<WorkflowOutcome> {
    const state = ctx.toolCallId ? this.#proposals.get(ctx.toolCallId) : undefined;
    const pending = state?.pending?.[0];
    if (!state || !pending) throw new ToolError("No plan was made for this call; call plan again.");
    this.#proposals.delete(ctx.toolCallId as string);
    const decision: ApprovalDecision = ctx.editedFrom === undefined ? { action: "approve" } : { action: "edit", arguments: steps ?? [] };
    return this.#goOn(state, { [pending.id]: decision }, ctx);
  }

  /** Goes on with a plan run that paused, with the user's decisions on what it waits for. */
  #goOn(state: WorkflowState, decisions: ApprovalDecisions, ctx: ToolContext): Promise<WorkflowOutcome> {
    return this.#session(state.task, { state, decisions, ...(ctx.signal ? { signal: ctx.signal } : {}), ...callParent(ctx.runId, ctx.agentName, ctx.toolCallId) });
  }

  run(task: string, opts: WorkflowRunOptions = {}): Promise<WorkflowOutcome> {
    return this.#session(task, opts);
  }

  async #session(task: string, opts: WorkflowRunOptions): Promise<WorkflowOutcome> {
    const run: Run = new WorkflowRun(
      "plan-tool",
      task,
      opts,
      { name: this.name, onEvent: this.#opts.onEvent, also: (event) => this.#hosts.emit(event) },
      () => ({ planner: null, plan: null, results: [] }),
    );
    return run.ended ?? run.guard(() => this.#drive(run));
  }

  async #drive(run: Run): Promise<WorkflowOutcome> {
    const { task } = run;
    const p = run.progress;
    const approves = this.#opts.approvePlans === true;

    const reviewed = await run.reviewPlan();
    switch (reviewed.kind) {
      case "asked-again":
        return reviewed.outcome;
      case "replan": {
        const { rejected } = reviewed;
        const planned = await this.#plan(run, planRejectedNote(rejected.steps, rejected.feedback));
        return run.proposePlan(planned, reviewed.earlier);
      }
      case "rejected":
        this.#adopt(run, reviewed.proposal, reviewed.proposal.steps, reviewed.review);
        return run.end(planRejectedResult(reviewed.review), "no-answer");
      case "approved":
        this.#adopt(run, reviewed.proposal, reviewed.steps, reviewed.review);
        await run.checkpoint();
        break;
      case "unreviewed":
        break;
    }

    if (!p.plan) {
      const planned = await this.#plan(run, `Task: ${task}`);
      if (approves) return run.proposePlan(planned);
      this.#adopt(run, planned, planned.steps);
      await run.checkpoint();
    }

    const plan = p.plan as string[];
    for (let index = p.results.length; index < plan.length; index++) {
      if (run.stopping) return run.abort();
      const description = plan[index] as string;
      const end = run.recorder.stepStarted(1, { id: String(index + 1), description, dependsOn: index > 0 ? [String(index)] : [] });
      const outcome = await this.#execute(run, subtaskInput(task, plan, index, p.results, run.reviewNote), index);
      // A subtask cut short (the run stopped) is not done: a resumed run goes on with its agent.
      if (run.aborted || "stopped" in outcome) return run.abort();
      if ("pending" in outcome) return run.pause(outcome.pending);
      const record = end(outcome.text, outcome.isError);
      p.results.push(outcome.isError ? `Error: ${outcome.text}` : outcome.text);
      await run.stepDone(record);
    }
    return run.end(planResultsText(p.results, run.reviewNote), "final");
  }

  /** Records the plan round and makes its subtasks the ones to run. */
  #adopt(run: Run, planned: Omit<Planned, "steps">, steps: string[], review?: PlanReview): void {
    const p = run.progress;
    p.plan = steps;
    run.recorder.planned({
      steps: steps.map((description, i) => ({ id: String(i + 1), description, dependsOn: i > 0 ? [String(i)] : [] })),
      errors: planned.errors,
      fallback: planned.fallback,
      durationMs: planned.durationMs,
      ...(review ? { review } : {}),
    });
  }

  #planner(): Agent {
    return new Agent({
      name: "planner",
      model: roleModel(this.#opts, "planner"),
      systemPrompt: plannerSystemPrompt(this.#maxSubtasks),
      tools: this.#plannerTools,
      ...(this.#opts.plannerMaxSteps ? { maxSteps: this.#opts.plannerMaxSteps } : {}),
    });
  }

  /**
   * Asks the planner (which remembers earlier rounds, kept in the run's progress) for subtasks, with
   * one retry after unusable output; when both fail, the task is the only subtask.
   */
  async #plan(run: Run, input: string): Promise<Planned> {
    const { signal } = run;
    const planner = this.#planner();
    if (run.progress.planner) planner.loadState(run.progress.planner);
    planner.on((event) => run.recorder.emit(event));
    run.recorder.planningStarted();
    const started = performance.now();
    const schema = z.object({ subtasks: z.array(z.string().trim().min(1)).min(1).max(this.#maxSubtasks) });
    const errors: string[] = [];
    let message = input;
    for (let attempt = 0; attempt < 2; attempt++) {
      const result = await planner.run(message, { parent: run.recorder.childOf(), ...(signal ? { signal } : {}) });
      const read = readJsonReply(result.text, schema);
      run.progress.planner = planner.saveState();
      if ("data" in read) return { steps: read.data.subtasks, errors, fallback: false, durationMs: performance.now() - started };
      errors.push(read.error);
      message = planRetryNote(read.error);
    }
    run.recorder.planningFailed(errors, "task-as-one-step");
    return { steps: [run.task], errors, fallback: true, durationMs: performance.now() - started };
  }

  #execute(run: Run, input: string, index: number): Promise<StepAgentOutcome> {
    const agent: AgentOptions = {
      name: `subtask-${index + 1}`,
      model: roleModel(this.#opts, "executor"),
      systemPrompt: SUBTASK_SYSTEM_PROMPT,
      tools: this.#executorTools,
      ...(this.#opts.executorMaxSteps ? { maxSteps: this.#opts.executorMaxSteps } : {}),
      ...(this.#opts.permissions ? { permissions: this.#opts.permissions } : {}),
    };
    return runStepAgent(run, String(index + 1), agent, input);
  }
}

/** The plan call as the parent of the workflow run it starts, when the agent's run is known. */
function callParent(runId: string | undefined, agent: string | undefined, toolCallId: string | undefined): { parent?: EventParent } {
  return runId !== undefined ? { parent: { runId, agent: agent ?? "", ...(toolCallId ? { toolCallId } : {}) } } : {};
}
