import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { checkDecisions, DecisionsError, type ApprovalDecisions } from "../core/approval.js";
import { boundedText } from "../core/bounded-quote.js";
import { stampEvent, type AgentEvent } from "../core/events.js";
import type { ChatModel } from "../core/model.js";
import type { Tool } from "../core/tool.js";
import { resolveModel } from "../models/model-spec.js";
import type { TaskStore } from "../planning/tasks/task-store.js";
import { RunBusyError, RunNotFoundError, type LoggedEvent, type RunLease, type RunRecord, type SavedRun } from "../stores/run-store.js";
import { workspaceTools } from "../tools/workspace-tools.js";
import type { ExternalDriver } from "./external-driver.js";
import { holderIsDeadHere, leaseHolderName } from "./lease-holder.js";
import { keepLease } from "./lease-keeper.js";
import { driveSession, type CheckpointGate, type DriveStart, type RunOutcome } from "./run-driver.js";
import { loggedPendingCalls } from "./logged-pending-calls.js";
import { followRunEvents, RunChanges, type FollowOptions } from "./run-events.js";
import { resumingEndpoint, startingEndpoint } from "./run-endpoint.js";
import { ModelUnavailableError, RunInputError } from "./run-input-error.js";
import { mergeSettings, sessionSettings, type RunSettings } from "./run-settings.js";
import { checkTaskStore, openStores, type StoreSet } from "./store-set.js";
import { createSession, parseStrategy, type ModelsByRole, type StrategyName } from "./strategies.js";
import type { StrategySession } from "./strategy-session.js";

export type RunsOptions = {
  /** Where runs, plans and boards live: a SQLite file path, a postgres:// URL, or stores already open. */
  store: string | StoreSet;
  /**
   * Models for a run's model spec, in this process (default: `resolveModel`, one model for every role).
   * `endpoint` is the base URL the run was started with (`settings.endpoint`): build a provider's
   * model against it, so a resumed run's requests go where they went before.
   */
  models?: (spec: string, strategy: StrategyName, endpoint: string | undefined) => ModelsByRole;
  /** The tools a run gets in this process (default: the workspace tools of its workspace); may connect to get them (MCP servers). */
  tools?: (settings: RunSettings) => Tool[] | Promise<Tool[]>;
  /** This process's name in leases (default: host, pid and a random suffix). */
  holder?: string;
  /** How long a lease lasts without a heartbeat (ms, default 30 000): how soon a dead driver's run can be taken over. */
  leaseMs?: number;
  /** A step that could not be recorded; the run goes on. */
  onWarning?: (message: string) => void;
  /**
   * How many resumes of a run in a row may fail before it could be driven (no model key, workspace or tools
   * here; a checkpoint that does not load) before the run is marked failed with the last reason (default 5).
   */
  resumeAttempts?: number;
  /** How long workers leave a run after its first failed resume (ms, default 2 000); doubled after each further one, at most 10 minutes. */
  resumeBackoffMs?: number;
  /** Drivers outside this layer (`restateDriver` from `stepwise/restate`): decisions for a run one holds go to it. */
  externalDrivers?: ExternalDriver[];
};

export type StartRunOptions = {
  task: string;
  /** One of STRATEGIES or BASELINE_STRATEGY (default "notebook"); a name from outside (argv, JSON) goes through `parseStrategy` first, which says what is accepted. */
  strategy?: StrategyName;
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
  /**
   * Stops the drive after its current step, checkpointed, and hands the run back: it stays running,
   * its lease let go, for another driver to claim (a worker that shuts down). `signal` stops it as aborted.
   */
  handBack?: AbortSignal;
  onEvent?: (event: AgentEvent, seq: number) => void;
};

/** A run a worker claimed: the run as it was taken, and its drive (rejects when the resume could not start, or the lease was lost). */
export type ClaimedDrive = { readonly run: RunRecord; readonly done: Promise<RunOutcome> };

/** A run being driven in this process. */
export type RunHandle = {
  readonly id: string;
  readonly task: string;
  readonly strategy: StrategyName;
  /** Settles when the drive stops: finished, paused, at its limit, aborted, or its lease lost (rejects). */
  readonly done: Promise<RunOutcome>;
  /**
   * Stops now, as Ctrl-C does: a model or tool call in flight is cut off and logged as interrupted
   * (never made again on its own), the state before it saved. (A worker's hand-back instead lets the
   * step in flight finish.)
   */
  stop(): void;
};

export interface Runs {
  readonly stores: StoreSet;
  start(opts: StartRunOptions): Promise<RunHandle>;
  /**
   * Takes the run over and drives it on from its checkpoint: a killed or stopped run continues; a
   * paused one goes on with `decisions` (or those submitted to the store), else stays paused.
   * Rejects with `RunBusyError` while another process holds the run, and with `DecisionsError` (the run
   * left paused as it was) when the decisions do not fit its pending calls.
   */
  resume(id: string, decisions?: ApprovalDecisions, opts?: ResumeRunOptions): Promise<RunHandle>;
  /**
   * Claims the run that has waited longest for a driver (its driver died, it was let go, decisions
   * came for it) and drives it on as `resume` would; undefined when none needs a driver now. Of many
   * processes claiming at once, each gets a different run; runs named in `passOver` are left.
   */
  claimNext(opts?: ResumeRunOptions & { passOver?: readonly string[] }): Promise<ClaimedDrive | undefined>;
  /**
   * Records a new run for a worker (`stepwise worker`, `workRuns`) to drive, and returns its id: nothing
   * runs here. Its model is a spec each worker resolves, its tools those each worker gives.
   */
  enqueue(opts: Omit<StartRunOptions, "model" | "tools" | "signal" | "onEvent"> & { model: string }): Promise<string>;
  /** Leaves decisions for a paused run for whichever process resumes it (`stepwise worker`); `DecisionsError` when they do not fit its pending calls. */
  submitDecisions(id: string, decisions: ApprovalDecisions): Promise<void>;
  /**
   * Hands decisions for a paused run to the external driver holding it, and returns true; false when
   * no external driver holds it (resume it here). `DecisionsError` when they do not fit its pending calls.
   */
  decideExternally(id: string, decisions: ApprovalDecisions): Promise<boolean>;
  list(limit?: number): Promise<RunRecord[]>;
  get(id: string): Promise<RunRecord | undefined>;
  /** The run's events, from the first (or after `after`) on, live; ends when the run stops unless `follow`. */
  events(id: string, opts?: FollowOptions): AsyncIterable<LoggedEvent>;
  /** Calls `listener` with a run's id whenever it changes, here or in another process. */
  watch(listener: (runId: string) => void): Promise<() => void>;
  /**
   * Waits for the runs driven here to stop, then closes the stores it opened. By default each run
   * goes on until it stops by itself (finishes, pauses for the user, reaches its limit), as a job
   * queue's close drains the jobs it took; `{ stop: true }` stops each at once instead, as `stop()`
   * does, state saved, for a process that is shutting down (a resume goes on later, here or elsewhere).
   * Once called, `start` and `resume` are refused.
   */
  close(opts?: { stop?: boolean }): Promise<void>;
}

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_RESUME_ATTEMPTS = 5;
const DEFAULT_RESUME_BACKOFF_MS = 2_000;
const MAX_RESUME_BACKOFF_MS = 600_000;
/** How much of a failed resume's reason the run keeps: it may quote a server's or a file's text. */
const REASON_LIMIT = 1_000;

/** The headless run layer: the CLI, the viewer and library users start, resume and watch runs through it. */
export function openRuns(opts: RunsOptions): Runs {
  const stores = typeof opts.store === "string" ? openStores(opts.store) : opts.store;
  const ownsStores = typeof opts.store === "string";
  const holder = opts.holder ?? leaseHolderName();
  const leaseMs = opts.leaseMs ?? DEFAULT_LEASE_MS;
  const resumeAttempts = opts.resumeAttempts ?? DEFAULT_RESUME_ATTEMPTS;
  const resumeBackoffMs = opts.resumeBackoffMs ?? DEFAULT_RESUME_BACKOFF_MS;
  const changes = new RunChanges(stores.runs);
  const driving = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  // Models and tools given to `start` as objects serve that run's later resumes in this process.
  const given = new Map<string, { models?: ModelsByRole; tools?: Tool[] }>();
  const closing = new AbortController();
  // Every run driven here listens on it, however many are driven at once (a worker's --concurrency).
  setMaxListeners(Infinity, closing.signal);
  let closed = false;
  /** Starts and resumes under way: `close` waits for the drives they are about to begin, too. */
  const launching = new Set<Promise<unknown>>();
  const track = <T>(launched: Promise<T>): Promise<T> => {
    const settled = launched.catch(() => undefined);
    launching.add(settled);
    void settled.finally(() => launching.delete(settled));
    return launched;
  };
  const unlessClosed = <T>(body: () => Promise<T>): Promise<T> => {
    if (closed) return Promise.reject(new Error("these runs were closed (runs.close()); open them again with openRuns to start or resume a run"));
    return track(body());
  };

  /** The run's models, against the run's own endpoint (a process that points the provider elsewhere is refused). */
  const modelsFor = (run: Pick<RunRecord, "id" | "model">, strategy: StrategyName, settings: RunSettings): ModelsByRole => {
    const own = given.get(run.id)?.models;
    if (own) return own;
    const endpoint = resumingEndpoint(run.id, run.model, settings.endpoint, process.env);
    if (opts.models) return opts.models(run.model, strategy, endpoint);
    let model: ChatModel;
    try {
      model = resolveModel(run.model, { baseURL: endpoint });
    } catch (error) {
      throw new ModelUnavailableError(error instanceof Error ? error.message : String(error));
    }
    return () => model;
  };

  const openSession = async (run: Pick<RunRecord, "id" | "model">, strategy: StrategyName, settings: RunSettings, save: () => Promise<void>) => {
    const models = modelsFor(run, strategy, settings);
    const tools = given.get(run.id)?.tools ?? (await opts.tools?.(settings)) ?? workspaceTools(settings.workspace);
    let board: TaskStore | undefined;
    if (strategy === "tasks") {
      board = stores.board(settings.board ?? run.id);
      await checkTaskStore(board, stores.location);
    }
    const plans = strategy === "notebook" ? await stores.plans(run.id) : undefined;
    return createSession(strategy, {
      runId: run.id,
      models,
      tools,
      taskStore: () => board ?? stores.board(settings.board ?? run.id),
      ...(plans ? { planStore: () => plans } : {}),
      checkpoint: save,
      ...sessionSettings(settings),
    });
  };

  /**
   * Lets go of a run whose resume could not start here, after counting the failure against it with its
   * reason (not decisions that did not fit: the caller's to correct): workers leave it longer after each
   * failure and look past it meanwhile, and after `resumeAttempts` in a row it is marked failed.
   */
  const resumeFailed = async (run: RunRecord, lease: RunLease, error: unknown): Promise<void> => {
    if (!(error instanceof DecisionsError)) {
      const reason = boundedText((error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "", REASON_LIMIT);
      const count = (run.resumeFailures?.count ?? 0) + 1;
      const failure = { error: reason, retryInMs: Math.min(MAX_RESUME_BACKOFF_MS, resumeBackoffMs * 2 ** (count - 1)) };
      try {
        if (count < resumeAttempts) await stores.runs.updateRun(lease, { resumeFailure: failure });
        else {
          const message = `gave up resuming the run after ${count} failed attempts in a row; the last: ${reason}`;
          await stores.runs.appendEvents(lease, [stampEvent({ type: "run-error", message }, run.strategy, { runId: run.id })]);
          await stores.runs.updateRun(lease, { status: "failed", resumeFailure: failure });
        }
      } catch {
        // The store itself failed: there is nothing more to record the failure in.
      }
    }
    await stores.runs.releaseLease(lease).catch(() => undefined);
  };

  /**
   * Builds the session, drives it in the background, closes it when the drive stops. A session that
   * cannot be built fails a new run; a resumed one (`resumed`, as it was read) is let go through
   * `resumeFailed`, for a process that has what it needs (its model's key, its tools).
   */
  const launch = async (
    resumed: RunRecord | undefined,
    run: Pick<RunRecord, "id" | "task" | "model">,
    strategy: StrategyName,
    settings: RunSettings,
    lease: RunLease,
    start: (session: StrategySession) => Promise<DriveStart>,
    drive: { signal?: AbortSignal; handBack?: AbortSignal; onEvent?: (event: AgentEvent, seq: number) => void },
  ): Promise<RunHandle> => {
    let session: StrategySession | undefined;
    const gate: CheckpointGate = {};
    let from: DriveStart;
    // Renewed from now on: opening the session may take long (its tools connect: an MCP server lists, or waits for an authorization).
    const keeper = keepLease(stores.runs, lease, leaseMs);
    try {
      session = await openSession(run, strategy, settings, async () => gate.save?.());
      from = await start(session);
      if (keeper.lost) throw keeper.lost;
      if (resumed?.resumeFailures) await stores.runs.updateRun(lease, { resumeFailure: null });
    } catch (error) {
      keeper.stop();
      await session?.close().catch(() => undefined);
      if (resumed) await resumeFailed(resumed, lease, error);
      else {
        await stores.runs.updateRun(lease, { status: "failed" }).catch(() => undefined);
        await stores.runs.releaseLease(lease).catch(() => undefined);
      }
      throw error;
    }
    const controller = new AbortController();
    const stop = () => controller.abort();
    drive.signal?.addEventListener("abort", stop, { once: true });
    closing.signal.addEventListener("abort", stop, { once: true });
    if (closing.signal.aborted) stop();
    const opened = session;
    const done = driveSession(opened, from, {
      store: stores.runs,
      gate,
      lease,
      keeper,
      signal: controller.signal,
      // A hand-back lets the step in flight finish: its calls are not made again by whoever claims the run.
      ...(drive.handBack ? { stopAfterStep: drive.handBack } : {}),
      handsBack: () => drive.handBack?.aborted === true,
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

  /** Drives on a run this process holds the lease of (resumed or claimed), from its checkpoint, with `decisions` or those submitted. */
  const resumeLeased = async (
    run: RunRecord,
    lease: RunLease,
    decisions: ApprovalDecisions | undefined,
    resume: ResumeRunOptions,
    // What the claim read already (claimNext): not read again.
    saved?: SavedRun,
  ): Promise<RunHandle> => {
    const id = run.id;
    let strategy: StrategyName;
    let settings: RunSettings;
    try {
      // What the store holds may be broken or from elsewhere: every failure from here on counts against the run.
      strategy = parseStrategy(run.strategy);
      const savedSettings = (saved ? saved.settings : await stores.runs.loadSettings(id)) as RunSettings | undefined;
      settings = mergeSettings(resume.settings ?? {}, savedSettings);
      // What was overridden holds from now on, for a later resume here or anywhere else.
      if (resume.settings && Object.keys(resume.settings).length > 0) await stores.runs.saveSettings(lease, settings);
    } catch (error) {
      await resumeFailed(run, lease, error);
      throw error;
    }
    return launch(
      run,
      run,
      strategy,
      settings,
      lease,
      async (session) => {
        const checkpoint = saved ? saved.checkpoint : await stores.runs.loadCheckpoint(id);
        if (checkpoint !== undefined) session.restore(checkpoint);
        const emptyLog = saved?.lastSeq === 0;
        // Decisions are accepted only for a paused run, so a running one has none to take (a round trip saved per claimed run).
        const submitted = run.status === "awaiting-user" ? await stores.runs.takeDecisions(lease) : undefined;
        const chosen = decisions ?? submitted;
        const paused = session.pending().length > 0;
        // A paused run without decisions stays paused: the drive reports what it waits on.
        if (paused && !chosen) return { kind: "continue", task: run.task, emptyLog };
        // Before anything is saved: decisions that do not fit leave the run paused as it was.
        if (paused && chosen) checkDecisions(session.pending(), chosen);
        if (run.status !== "running") await stores.runs.updateRun(lease, { status: "running" });
        return paused && chosen ? { kind: "decide", decisions: chosen, emptyLog } : { kind: "continue", task: run.task, emptyLog };
      },
      resume,
    );
  };

  return {
    stores,

    start: (start) => unlessClosed(async () => {
      const strategy = parseStrategy(start.strategy ?? "notebook");
      const model = typeof start.model === "string" ? start.model : start.model.id;
      // A spec's endpoint is kept with the run, so that every later resume talks to the same one.
      const endpoint = typeof start.model === "string" ? startingEndpoint(start.model, process.env) : undefined;
      const settings = mergeSettings({ ...(endpoint !== undefined ? { endpoint } : {}), ...start.settings }, undefined);
      if (!start.task.trim()) throw new RunInputError("a run needs a task: say what the agent should do");
      const id = randomUUID();
      if (typeof start.model !== "string" || start.tools) {
        const chat = typeof start.model === "string" ? undefined : start.model;
        given.set(id, { ...(chat ? { models: () => chat } : {}), ...(start.tools ? { tools: start.tools } : {}) });
      }
      const run = { id, task: start.task, strategy, model };
      // The model is resolved before the run is recorded, so a bad spec leaves no failed run behind.
      modelsFor(run, strategy, settings);
      const lease = await stores.runs.createRun(run, settings, holder, leaseMs);
      return launch(undefined, run, strategy, settings, lease, async () => ({ kind: "run", task: start.task }), start);
    }),

    resume: (id, decisions, resume = {}) => unlessClosed(async () => {
      const run = await stores.runs.getRun(id);
      if (!run) throw new RunNotFoundError(id);
      if (run.status === "final") throw new RunInputError(`run ${id} already finished; nothing to resume`);
      if (decisions && run.status !== "awaiting-user") throw new RunInputError(`run ${id} is ${run.status}, not waiting for the user`);
      return resumeLeased(run, await takeOver(id), decisions, resume);
    }),

    claimNext: (resume = {}) => unlessClosed(async () => {
      const claimed = await stores.runs.claimRun(holder, leaseMs, resume.passOver);
      if (!claimed) return undefined;
      // Tracked as a resume is: `close` waits for the drive it is about to begin.
      const started = track(resumeLeased(claimed.run, claimed.lease, undefined, resume, claimed.saved));
      return { run: claimed.run, done: started.then((handle) => handle.done) };
    }),

    enqueue: (queued) => unlessClosed(async () => {
      const strategy = parseStrategy(queued.strategy ?? "notebook");
      const endpoint = startingEndpoint(queued.model, process.env);
      const settings = mergeSettings({ ...(endpoint !== undefined ? { endpoint } : {}), ...queued.settings }, undefined);
      if (!queued.task.trim()) throw new RunInputError("a run needs a task: say what the agent should do");
      const run = { id: randomUUID(), task: queued.task, strategy, model: queued.model };
      // Let go at once: the release tells idle workers there is a run to claim.
      await stores.runs.releaseLease(await stores.runs.createRun(run, settings, holder, leaseMs));
      return run.id;
    }),

    async submitDecisions(id, decisions) {
      const run = await stores.runs.getRun(id);
      if (!run) throw new RunNotFoundError(id);
      if (run.status === "awaiting-user") checkDecisions(await loggedPendingCalls(stores.runs, id), decisions);
      if (!(await stores.runs.submitDecisions(id, decisions))) {
        throw new RunInputError(
          run.decided ? `run ${id} already has decisions waiting for a driver (stepwise worker)` : `run ${id} is ${run.status}, not waiting for the user`,
        );
      }
    },

    async decideExternally(id, decisions) {
      const run = await stores.runs.getRun(id);
      if (!run) throw new RunNotFoundError(id);
      const holder = run.lease?.holder;
      const driver = holder === undefined ? undefined : opts.externalDrivers?.find((d) => d.holds(holder));
      if (!driver) return false;
      if (run.status !== "awaiting-user") throw new RunInputError(`run ${id} is ${run.status}, not waiting for the user`);
      // Checked here too: the same error as a run resumed here, before anything reaches the driver.
      checkDecisions(await loggedPendingCalls(stores.runs, id), decisions);
      await driver.decide(id, decisions);
      return true;
    },

    list: (limit) => stores.runs.listRuns(limit),
    get: (id) => stores.runs.getRun(id),
    events: (id, follow) => followRunEvents(stores.runs, changes, id, follow),
    watch: (listener) => changes.on(listener),

    async close(how = {}) {
      closed = true;
      if (how.stop) closing.abort();
      await Promise.all([...launching]);
      await Promise.all([...driving.values()].map((d) => d.done));
      await changes.close();
      if (ownsStores) await stores.close();
    },
  };
}
