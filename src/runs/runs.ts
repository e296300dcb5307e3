import { randomUUID } from "node:crypto";
import type { ApprovalDecisions } from "../core/approval.js";
import type { AgentEvent } from "../core/events.js";
import type { ChatModel } from "../core/model.js";
import type { Tool } from "../core/tool.js";
import { resolveModel } from "../models/model-spec.js";
import type { TaskStore } from "../planning/tasks/task-store.js";
import { RunBusyError, RunNotFoundError, type LoggedEvent, type RunLease, type RunRecord } from "../stores/run-store.js";
import { workspaceTools } from "../tools/workspace-tools.js";
import { approvalPolicy, approvesPlans } from "./approval-mode.js";
import { holderIsDeadHere, leaseHolderName } from "./lease-holder.js";
import { driveSession, type CheckpointGate, type DriveStart, type RunOutcome } from "./run-driver.js";
import { followRunEvents, RunChanges, type FollowOptions } from "./run-events.js";
import { RunInputError } from "./run-input-error.js";
import { mergeSettings, type RunSettings } from "./run-settings.js";
import { checkTaskStore, openStores, type RunStores } from "./run-stores.js";
import { createSession, parseStrategy, type ModelsByRole, type StrategyName } from "./strategies.js";
import type { StrategySession } from "./strategy-session.js";

export type RunsOptions = {
  /** Where runs, plans and boards live: a SQLite file path, a postgres:// URL, or stores already open. */
  store: string | RunStores;
  /** Models for a run's model spec, in this process (default: `resolveModel`, one model for every role). */
  models?: (spec: string, strategy: StrategyName) => ModelsByRole;
  /** The tools a run gets in this process (default: the workspace tools of its workspace); may connect to get them (MCP servers). */
  tools?: (settings: RunSettings) => Tool[] | Promise<Tool[]>;
  /** This process's name in leases (default: host, pid and a random suffix). */
  holder?: string;
  /** How long a lease lasts without a heartbeat (ms, default 30 000): how soon a dead driver's run can be taken over. */
  leaseMs?: number;
  /** A step that could not be recorded; the run goes on. */
  onWarning?: (message: string) => void;
};

export type StartRunOptions = {
  task: string;
  strategy?: string;
  /** A model spec (`openai:gpt-4o-mini`) or a model; a model's `id` is kept, and a resumer elsewhere resolves it with its `models`. */
  model: string | ChatModel;
  /** Tools for this run in this process, instead of the workspace tools; a resumer elsewhere brings its own (`RunsOptions.tools`). */
  tools?: Tool[];
  settings?: Partial<RunSettings>;
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent, seq: number) => void;
};

export type ResumeRunOptions = {
  /** Settings that change from now on (saved with the run). */
  settings?: Partial<RunSettings>;
  signal?: AbortSignal;
  onEvent?: (event: AgentEvent, seq: number) => void;
};

/** A run being driven in this process. */
export type RunHandle = {
  readonly id: string;
  readonly task: string;
  readonly strategy: StrategyName;
  /** Settles when the drive stops: finished, paused, at its limit, aborted, or its lease lost (rejects). */
  readonly done: Promise<RunOutcome>;
  /** Stops after the current step, state saved. */
  stop(): void;
};

export interface Runs {
  readonly stores: RunStores;
  start(opts: StartRunOptions): Promise<RunHandle>;
  /**
   * Takes the run over and drives it on from its checkpoint: a killed or stopped run continues; a
   * paused one goes on with `decisions` (or those submitted to the store), else stays paused.
   * Rejects with `RunBusyError` while another process holds the run.
   */
  resume(id: string, decisions?: ApprovalDecisions, opts?: ResumeRunOptions): Promise<RunHandle>;
  /** Leaves decisions for a paused run for whichever process resumes it (`stepwise worker`). */
  submitDecisions(id: string, decisions: ApprovalDecisions): Promise<void>;
  list(limit?: number): Promise<RunRecord[]>;
  get(id: string): Promise<RunRecord | undefined>;
  /** The run's events, from the first (or after `after`) on, live; ends when the run stops unless `follow`. */
  events(id: string, opts?: FollowOptions): AsyncIterable<LoggedEvent>;
  /** Calls `listener` with a run's id whenever it changes, here or in another process. */
  watch(listener: (runId: string) => void): Promise<() => void>;
  /** Stops every run driven here after its current step and closes the stores it opened. */
  close(): Promise<void>;
}

const DEFAULT_LEASE_MS = 30_000;

/** The headless run layer: the CLI, the viewer and library users start, resume and watch runs through it. */
export function openRuns(opts: RunsOptions): Runs {
  const stores = typeof opts.store === "string" ? openStores(opts.store) : opts.store;
  const ownsStores = typeof opts.store === "string";
  const holder = opts.holder ?? leaseHolderName();
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const changes = new RunChanges(stores.runs);
  const driving = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  // Models and tools given to `start` as objects serve that run's later resumes in this process.
  const given = new Map<string, { models?: ModelsByRole; tools?: Tool[] }>();
  const closing = new AbortController();

  const modelsFor = (runId: string, spec: string, strategy: StrategyName): ModelsByRole => {
    const own = given.get(runId)?.models;
    if (own) return own;
    if (opts.models) return opts.models(spec, strategy);
    let model: ChatModel;
    try {
      model = resolveModel(spec);
    } catch (error) {
      throw new RunInputError(error instanceof Error ? error.message : String(error));
    }
    return () => model;
  };

  const openSession = async (run: Pick<RunRecord, "id" | "model">, strategy: StrategyName, settings: RunSettings, save: () => Promise<void>) => {
    const models = modelsFor(run.id, run.model, strategy);
    const tools = given.get(run.id)?.tools ?? (await opts.tools?.(settings)) ?? workspaceTools(settings.workspace);
    let board: TaskStore | undefined;
    if (strategy === "tasks") {
      board = stores.board(settings.board ?? run.id);
      await checkTaskStore(board, stores.location);
    }
    const plans = strategy === "notebook" ? await stores.plans(run.id) : undefined;
    const permissions = approvalPolicy(settings.approval);
    return createSession(strategy, {
      runId: run.id,
      models,
      tools,
      taskStore: () => board ?? stores.board(settings.board ?? run.id),
      ...(plans ? { planStorage: () => plans } : {}),
      checkpoint: save,
      ...(permissions ? { permissions } : {}),
      ...(approvesPlans(settings.approval) ? { approvePlans: true } : {}),
      ...(settings.maxSteps ? { maxSteps: settings.maxSteps } : {}),
      ...(settings.contextBudget ? { contextBudget: settings.contextBudget } : {}),
    });
  };

  /**
   * Builds the session, drives it in the background, closes it when the drive stops. A session that
   * cannot be built fails a new run; a resumed one is left as it was, for a process that has what it
   * needs (its model's key, its tools).
   */
  const launch = async (
    isNew: boolean,
    run: Pick<RunRecord, "id" | "task" | "model">,
    strategy: StrategyName,
    settings: RunSettings,
    lease: RunLease,
    start: (session: StrategySession) => Promise<DriveStart>,
    drive: { signal?: AbortSignal; onEvent?: (event: AgentEvent, seq: number) => void },
  ): Promise<RunHandle> => {
    let session: StrategySession | undefined;
    const gate: CheckpointGate = {};
    let from: DriveStart;
    try {
      session = await openSession(run, strategy, settings, async () => gate.save?.());
      from = await start(session);
    } catch (error) {
      await session?.close().catch(() => undefined);
      if (isNew) await stores.runs.updateRun(lease, { status: "failed" }).catch(() => undefined);
      await stores.runs.releaseLease(lease).catch(() => undefined);
      throw error;
    }
    const controller = new AbortController();
    const stop = () => controller.abort();
    drive.signal?.addEventListener("abort", stop, { once: true });
    closing.signal.addEventListener("abort", stop, { once: true });
    const opened = session;
    const done = driveSession(opened, from, {
      store: stores.runs,
      gate,
      lease,
      leaseMs,
      signal: controller.signal,
      ...(drive.onEvent ? { onEvent: drive.onEvent } : {}),
      ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    }).finally(async () => {
      drive.signal?.removeEventListener("abort", stop);
      closing.signal.removeEventListener("abort", stop);
      driving.delete(run.id);
      await opened.close();
    });
    driving.set(run.id, { controller, done: done.catch(() => undefined) });
    return { id: run.id, task: run.task, strategy, done, stop };
  };

  /** Takes the run's lease; a holder on this host whose process is gone is not waited out. */
  const takeOver = async (id: string): Promise<RunLease> => {
    try {
      return await stores.runs.acquireLease(id, holder, leaseMs);
    } catch (error) {
      if (!(error instanceof RunBusyError) || !holderIsDeadHere(error.holder)) throw error;
      return stores.runs.acquireLease(id, holder, leaseMs, error.holder);
    }
  };

  return {
    stores,

    async start(start) {
      const strategy = parseStrategy(start.strategy ?? "notebook");
      const settings = mergeSettings(start.settings ?? {}, undefined);
      if (!start.task.trim()) throw new RunInputError("a run needs a task: say what the agent should do");
      const id = randomUUID();
      const model = typeof start.model === "string" ? start.model : start.model.id;
      if (typeof start.model !== "string" || start.tools) {
        const chat = typeof start.model === "string" ? undefined : start.model;
        given.set(id, { ...(chat ? { models: () => chat } : {}), ...(start.tools ? { tools: start.tools } : {}) });
      }
      // The model is resolved before the run is recorded, so a bad spec leaves no failed run behind.
      modelsFor(id, model, strategy);
      const run = { id, task: start.task, strategy, model };
      const lease = await stores.runs.createRun(run, settings, holder, leaseMs);
      return launch(true, run, strategy, settings, lease, async () => ({ kind: "run", task: start.task }), start);
    },

    async resume(id, decisions, resume = {}) {
      const run = await stores.runs.getRun(id);
      if (!run) throw new RunNotFoundError(id);
      if (run.status === "finished") throw new RunInputError(`run ${id} already finished; nothing to resume`);
      if (decisions && run.status !== "awaiting-approval") throw new RunInputError(`run ${id} is ${run.status}, not waiting for approval`);
      const strategy = parseStrategy(run.strategy);
      const lease = await takeOver(id);
      let settings: RunSettings;
      try {
        const saved = (await stores.runs.loadSettings(id)) as RunSettings | undefined;
        settings = mergeSettings(resume.settings ?? {}, saved);
        // What was overridden holds from now on, for a later resume here or anywhere else.
        if (resume.settings && Object.keys(resume.settings).length > 0) await stores.runs.saveSettings(lease, settings);
      } catch (error) {
        await stores.runs.releaseLease(lease).catch(() => undefined);
        throw error;
      }
      return launch(
        false,
        run,
        strategy,
        settings,
        lease,
        async (session) => {
          const checkpoint = await stores.runs.loadCheckpoint(id);
          if (checkpoint !== undefined) session.restore(checkpoint);
          const submitted = await stores.runs.takeDecisions(lease);
          const chosen = decisions ?? submitted;
          const paused = session.pending().length > 0;
          // A paused run without decisions stays paused: the drive reports what it waits on.
          if (paused && !chosen) return { kind: "continue", task: run.task };
          await stores.runs.updateRun(lease, { status: "running" });
          return paused && chosen ? { kind: "decide", decisions: chosen } : { kind: "continue", task: run.task };
        },
        resume,
      );
    },

    async submitDecisions(id, decisions) {
      const run = await stores.runs.getRun(id);
      if (!run) throw new RunNotFoundError(id);
      if (!(await stores.runs.submitDecisions(id, decisions))) {
        throw new RunInputError(
          run.decided ? `run ${id} already has decisions waiting for a driver (stepwise worker)` : `run ${id} is ${run.status}, not waiting for approval`,
        );
      }
    },

    list: (limit) => stores.runs.listRuns(limit),
    get: (id) => stores.runs.getRun(id),
    events: (id, follow) => followRunEvents(stores.runs, changes, id, follow),
    watch: (listener) => changes.on(listener),

    async close() {
      closing.abort();
      await Promise.all([...driving.values()].map((d) => d.done));
      await changes.close();
      if (ownsStores) await stores.close();
    },
  };
}
