import { checkDecisions, type ApprovalDecision, type ApprovalDecisions, type PendingCall } from "../../core/approval.js";
import type { AgentEventListener } from "../../core/events.js";
import { heldCalls, type HeldCalls } from "./call-approval.js";
import { planPendingCall, readPlanDecision, type EditedPlanCheck, type PlanProposal, type PlanReviewed, type RejectedPlan } from "./plan-approval.js";
import { planReviewNote } from "./plan-approval-prompts.js";
import type { PlanReview } from "./plan-review.js";
import { listenerSink, WorkflowRecorder, type WorkflowEventSink } from "./workflow-recorder.js";
import type { StepRecord, WorkflowKind } from "./workflow-trace.js";
import { WORKFLOW_STATE_VERSION, type WorkflowApprovals, type WorkflowOutcome, type WorkflowRunOptions, type WorkflowState } from "./workflow.js";

type Ended = NonNullable<WorkflowState["ended"]>;

/**
 * One session of a workflow run, fresh or from a checkpoint: its trace, the workflow's own progress
 * (plain JSON), the checkpoints and the outcome. Checkpoints are written one at a time, in order,
 * and a step's end is announced only once the checkpoint holding it is saved, so whoever saw a
 * step end can count on a resumed run not doing it again.
 *
 * The run owns everything about the user's part (see WorkflowApprovals): every workflow proposes
 * and reviews its plans, and holds its own tool calls, through it. `X` is what a workflow keeps with
 * a proposed plan beside its steps.
 */
export class WorkflowRun<P, X extends object = object> {
  readonly recorder: WorkflowRecorder;
  readonly workflow: WorkflowKind;
  readonly task: string;
  readonly signal: AbortSignal | undefined;
  /** Given to the steps' agents too, so a step's agent stops after its own step in flight. */
  readonly stopAfterStep: AbortSignal | undefined;
  progress: P;
  /** The decisions on the tool calls the run was paused for (see `call-approval.ts`), by call id. */
  readonly decisions: ApprovalDecisions;
  readonly #approvals: WorkflowApprovals<X>;
  /** The decision on the plan the run was paused for, until `reviewPlan` applies it. */
  #planDecision: ApprovalDecision | undefined;
  /** The state a run that already ended was resumed with, returned as it is. */
  readonly #endedState: WorkflowState | undefined;
  readonly #onCheckpoint: WorkflowRunOptions["onCheckpoint"];
  #pending: PendingCall[] = [];
  #saved: Promise<void> = Promise.resolve();

  constructor(
    workflow: WorkflowKind,
    task: string,
    opts: WorkflowRunOptions,
    events: { name: string; onEvent: AgentEventListener | undefined; also?: WorkflowEventSink },
    fresh: () => P,
  ) {
    const own = listenerSink(events.name, events.onEvent);
    const forRun = listenerSink(events.name, opts.onEvent);
    const sink: WorkflowEventSink = (event) => {
      own(event);
      forRun(event);
      events.also?.(event);
    };
    const state = opts.state ? currentShape(checkState(opts.state, workflow, task)) : undefined;
    const pending = state?.pending ?? [];
    if (pending.length > 0) checkDecisions(pending, opts.decisions ?? {});
    else if (opts.decisions && Object.keys(opts.decisions).length > 0) {
      throw new Error(`This ${workflow} run is not waiting for a decision: ${state ? "its saved state has no pending call" : "no state was given"}.`);
    }
    const decisions = pending.length > 0 ? (opts.decisions as ApprovalDecisions) : {};
    const plan = pending.find((call) => call.kind === "plan");
    this.#planDecision = plan ? decisions[plan.id] : undefined;
    this.decisions = Object.fromEntries(pending.filter((call) => call.kind !== "plan").map((call) => [call.id, decisions[call.id] as ApprovalDecision]));
    this.workflow = workflow;
    this.task = task;
    this.signal = opts.signal;
    this.stopAfterStep = opts.stopAfterStep;
    this.#onCheckpoint = opts.onCheckpoint;
    this.#endedState = state?.ended ? structuredClone(state) : undefined;
    this.recorder = new WorkflowRecorder(workflow, task, sink, { name: events.name, parent: opts.parent }, state?.trace);
    this.progress = state ? (structuredClone(state.progress) as P) : fresh();
    this.#approvals = state?.approvals ? (structuredClone(state.approvals) as WorkflowApprovals<X>) : { proposals: 0, note: null, held: {} };
    // The same announcement an agent makes, so every surface sees a workflow's pause end alike.
    if (pending.length > 0) this.recorder.emit({ type: "run-resumed", decisions: pending.length });
  }

  /** The outcome a run that already ended had; running it again changes nothing. */
  get ended(): WorkflowOutcome | undefined {
    const ended = this.#endedState?.ended;
    return ended ? this.#outcome(ended.text, ended.stopReason, this.#endedState as WorkflowState) : undefined;
  }

  get aborted(): boolean {
    return this.signal?.aborted === true;
  }

  /** Aborted, or asked to stop after the step in flight: checked between steps. */
  get stopping(): boolean {
    return this.aborted || this.stopAfterStep?.aborted === true;
  }

  state(): WorkflowState {
    return {
      version: WORKFLOW_STATE_VERSION,
      workflow: this.workflow,
      task: this.task,
      trace: this.recorder.snapshot(),
      ...(this.#pending.length > 0 ? { pending: structuredClone(this.#pending) } : {}),
      approvals: structuredClone(this.#approvals),
      progress: structuredClone(this.progress),
    };
  }

  /** What the user's review of the plan changed, for the steps that follow; null when it changed nothing. */
  get reviewNote(): string | null {
    return this.#approvals.note;
  }

  /** The workflow's own tool calls held for the user (see `invokeWithApproval`), kept with the run's state. */
  get held(): HeldCalls {
    return this.#approvals.held;
  }

  /** Puts a plan before the user: the run pauses on it (a pending call of kind "plan"). `earlier`: proposals of this review rejected before. */
  proposePlan(plan: X & { steps: string[] }, earlier: RejectedPlan[] = []): Promise<WorkflowOutcome> {
    const proposal = { ...plan, earlier, callId: `plan-${++this.#approvals.proposals}` } as PlanProposal<X>;
    this.#approvals.proposal = proposal;
    return this.#askAboutPlan(proposal);
  }

  /**
   * Applies the user's decision to the proposed plan, the one review every workflow shares. An
   * approved or edited plan runs; a rejected one is re-planned once with the feedback and put to the
   * user again; a second rejection stops. An edit that is not a list of steps, or that `checkEdit`
   * refuses, loses nothing: the run pauses again on the same proposal, telling the user what was wrong.
   */
  async reviewPlan(checkEdit?: EditedPlanCheck): Promise<PlanReviewed<X>> {
    const proposal = this.#approvals.proposal;
    const decision = this.#planDecision;
    if (!proposal || !decision) return { kind: "unreviewed" };
    this.#planDecision = undefined;
    const read = readPlanDecision(decision, checkEdit);
    if ("unusable" in read) return { kind: "asked-again", outcome: await this.#askAboutPlan(proposal, read.unusable) };
    const planDecision = read.decision;
    this.recorder.emit({ type: "plan-approval-decided", workflow: this.workflow, task: this.task, decision: structuredClone(planDecision) });
    delete this.#approvals.proposal;
    if (planDecision.action === "reject" && proposal.earlier.length === 0) {
      const rejected = { steps: proposal.steps, feedback: planDecision.feedback };
      return { kind: "replan", rejected, earlier: [rejected], proposal };
    }
    const review: PlanReview = { proposed: proposal.steps, decision: planDecision, earlier: proposal.earlier };
    this.#approvals.note = planReviewNote(review) ?? this.#approvals.note;
    if (planDecision.action === "reject") return { kind: "rejected", review, proposal };
    const edited = planDecision.action === "edit";
    return { kind: "approved", steps: edited ? planDecision.steps : proposal.steps, edited, review, proposal };
  }

  /** Pauses the run on the calls `invokeWithApproval` held. */
  pauseOnHeldCalls(): Promise<WorkflowOutcome> {
    return this.pause(heldCalls(this.#approvals.held));
  }

  /** Pauses the run on a proposal, announcing it; `problem` is why the user is asked again. */
  #askAboutPlan(proposal: PlanProposal<X>, problem?: string): Promise<WorkflowOutcome> {
    this.recorder.emit({ type: "plan-approval-requested", workflow: this.workflow, task: this.task, steps: [...proposal.steps] });
    return this.pause([planPendingCall(this.task, proposal, problem)]);
  }

  /** Saves the state as it is now (or `state`); resolves once it, and every checkpoint before it, is saved. */
  checkpoint(state?: WorkflowState): Promise<void> {
    const save = this.#onCheckpoint;
    if (!save) return this.#saved;
    const snapshot = state ?? this.state();
    this.#saved = this.#saved.then(() => save(snapshot));
    return this.#saved;
  }

  /** Checkpoints a finished step, then announces it. */
  async stepDone(record: StepRecord): Promise<void> {
    await this.checkpoint();
    this.recorder.stepAnnounced(record);
  }

  async end(text: string, stopReason: Ended["stopReason"]): Promise<WorkflowOutcome> {
    const trace = this.recorder.finish(text);
    const state: WorkflowState = { ...this.state(), trace, ended: { text, stopReason } };
    await this.checkpoint(state);
    this.recorder.ended(trace);
    return this.#outcome(text, stopReason, state);
  }

  async pause(pending: PendingCall[]): Promise<WorkflowOutcome> {
    this.#pending = structuredClone(pending);
    const state = this.state();
    await this.checkpoint(state);
    // As an agent does: the calls a surface (terminal, viewer, API) must ask about, once saved.
    this.recorder.emit({ type: "approval-requested", calls: structuredClone(pending) });
    return { ...this.#outcome("", "awaiting-user", state), pending: structuredClone(pending) };
  }

  async abort(): Promise<WorkflowOutcome> {
    const state = this.state();
    await this.checkpoint(state);
    return this.#outcome("", "aborted", state);
  }

  /** Runs the session; a failure caused by the abort signal becomes an "aborted" outcome. */
  async guard(body: () => Promise<WorkflowOutcome>): Promise<WorkflowOutcome> {
    try {
      return await body();
    } catch (error) {
      if (this.aborted) return this.abort();
      throw error;
    }
  }

  #outcome(text: string, stopReason: WorkflowOutcome["stopReason"], state: WorkflowState): WorkflowOutcome {
    return { text, stopReason, state, answer: text, trace: state.trace };
  }
}

/** A workflow's progress as version 1 saved it, with the approval state inside. */
type Version1Progress = { proposal?: PlanProposal; proposals?: number; note?: string | null; held?: HeldCalls } & Record<string, unknown>;

/** A state in this version's shape: version 1 kept the approval state inside the workflow's progress. */
function currentShape(state: WorkflowState): WorkflowState {
  if (state.version >= 2 || typeof state.progress !== "object" || state.progress === null) return state;
  const { proposal, proposals, note, held, ...progress } = state.progress as Version1Progress;
  const approvals: WorkflowApprovals = { ...(proposal ? { proposal } : {}), proposals: proposals ?? 0, note: note ?? null, held: held ?? {} };
  return { ...state, version: WORKFLOW_STATE_VERSION, approvals, progress };
}

/** A saved state must be a workflow state this version reads, of this workflow and this task. */
function checkState(state: WorkflowState, workflow: WorkflowKind, task: string): WorkflowState {
  const shape = state as Partial<WorkflowState> | null;
  if (typeof shape !== "object" || shape === null || typeof shape.version !== "number" || typeof shape.trace !== "object" || !("progress" in shape)) {
    throw new Error("The state to resume from must be a WorkflowState saved by a workflow run: { version, workflow, task, trace, progress }.");
  }
  if (shape.version > WORKFLOW_STATE_VERSION) {
    throw new Error(`This workflow state has version ${shape.version}; this Stepwise reads versions up to ${WORKFLOW_STATE_VERSION}. Upgrade Stepwise to resume it.`);
  }
  if (shape.workflow !== workflow) throw new Error(`This state was saved by a ${String(shape.workflow)} run; it cannot resume a ${workflow} run.`);
  if (shape.task !== task) throw new Error(`This state belongs to a run of another task (${JSON.stringify(String(shape.task).slice(0, 200))}); resume it with that task.`);
  return state;
}
