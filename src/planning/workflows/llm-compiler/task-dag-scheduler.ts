export type DagTask = { readonly id: number; readonly dependsOn: readonly number[] };

/** What a runner returns for a task that cannot finish now (its call waits for the user): it stays unfinished, and no task that needs it starts. */
export const HOLD = Symbol("hold");

/** Runs one task given the results of the tasks it depends on. It should not reject; a rejection ends `idle()` with it. */
export type DagTaskRunner<T extends DagTask, R> = (task: T, inputs: ReadonlyMap<number, R>) => Promise<R | typeof HOLD>;

/**
 * Runs a growing task DAG: a task starts the moment its last dependency finishes, so tasks can be
 * added while the plan is still being written. Everything is driven by task completions; nothing polls.
 * Ready tasks start in the microtask after they became ready, together with every task that became
 * ready in the same burst (a plan delivered at once, several completions): when `maxParallel` leaves
 * room for only some of them, those with the longest chain of known tasks waiting on them go first,
 * so the critical path is not queued behind side work.
 */
export class TaskDagScheduler<T extends DagTask, R> {
  readonly #run: DagTaskRunner<T, R>;
  readonly #maxParallel: number;
  readonly #results = new Map<number, R>();
  readonly #known = new Set<number>();
  /** Tasks waiting for dependencies, with how many are still unfinished. */
  readonly #waiting = new Map<number, { task: T; missing: number }>();
  readonly #dependents = new Map<number, number[]>();
  /** Tasks not yet finished → the length of the longest chain of known tasks from it, itself included. */
  readonly #chain = new Map<number, number>();
  readonly #waitsOn = new Map<number, readonly number[]>();
  readonly #ready: T[] = [];
  /** Tasks whose runner returned HOLD. */
  readonly #held = new Set<number>();
  #pumpQueued = false;
  #running = 0;
  #idleWaiters: { resolve(): void; reject(error: unknown): void }[] = [];
  #failure: { error: unknown } | undefined;

  constructor(run: DagTaskRunner<T, R>, opts: { maxParallel?: number } = {}) {
    this.#run = run;
    this.#maxParallel = opts.maxParallel ?? Number.POSITIVE_INFINITY;
    if (!(this.#maxParallel >= 1)) throw new Error(`maxParallel must be at least 1, got ${String(opts.maxParallel)}.`);
  }

  get results(): ReadonlyMap<number, R> {
    return this.#results;
  }

  /** Tasks held unfinished (see HOLD); with them, `idle()` resolves once nothing else can run. */
  get held(): ReadonlySet<number> {
    return this.#held;
  }

  /** Records a task finished elsewhere (an earlier round, a reused result) so later tasks can depend on it. */
  complete(id: number, result: R): void {
    this.#claim(id);
    this.#finish(id, result);
  }

  /** Adds a task; its dependencies must already be known (added or completed). */
  add(task: T): void {
    const unknown = task.dependsOn.filter((dep) => !this.#known.has(dep));
    if (unknown.length > 0) throw new Error(`Task ${task.id} depends on unknown task(s) ${unknown.join(", ")}.`);
    this.#claim(task.id);
    const pending = [...new Set(task.dependsOn)].filter((dep) => !this.#results.has(dep));
    this.#chain.set(task.id, 1);
    this.#waitsOn.set(task.id, pending);
    this.#lengthenChains(task.id);
    if (pending.length === 0) {
      this.#ready.push(task);
      this.#queuePump();
      return;
    }
    this.#waiting.set(task.id, { task, missing: pending.length });
    for (const dep of pending) {
      const list = this.#dependents.get(dep) ?? [];
      list.push(task.id);
      this.#dependents.set(dep, list);
    }
  }

  /** Resolves once every task added so far has finished, or waits on a held one. */
  idle(): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure.error);
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve, reject) => this.#idleWaiters.push({ resolve, reject }));
  }

  #claim(id: number): void {
    if (this.#known.has(id)) throw new Error(`Task ${id} was added twice.`);
    this.#known.add(id);
  }

  /** A new task lengthens the chains of the unfinished tasks it waits on, and theirs in turn. */
  #lengthenChains(id: number): void {
    const stack = [id];
    while (stack.length > 0) {
      const current = stack.pop() as number;
      const length = (this.#chain.get(current) ?? 0) + 1;
      for (const dep of this.#waitsOn.get(current) ?? []) {
        if ((this.#chain.get(dep) ?? length) >= length) continue;
        this.#chain.set(dep, length);
        stack.push(dep);
      }
    }
  }

  #queuePump(): void {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    queueMicrotask(() => {
      this.#pumpQueued = false;
      this.#pump();
    });
  }

  /** The ready task with the longest chain after it; the earliest ready among equals. */
  #takeReady(): T {
    const chain = (at: number) => this.#chain.get((this.#ready[at] as T).id) ?? 0;
    let best = 0;
    for (let at = 1; at < this.#ready.length; at++) if (chain(at) > chain(best)) best = at;
    return this.#ready.splice(best, 1)[0] as T;
  }

  #pump(): void {
    while (this.#running < this.#maxParallel && this.#ready.length > 0) {
      const task = this.#takeReady();
      this.#running++;
      const inputs = new Map(task.dependsOn.map((dep) => [dep, this.#results.get(dep) as R]));
      this.#run(task, inputs).then(
        (result) => {
          this.#running--;
          if (result !== HOLD) return this.#finish(task.id, result);
          this.#held.add(task.id);
          this.#settle();
        },
        (error: unknown) => {
          this.#running--;
          this.#failure ??= { error };
          this.#settle();
        },
      );
    }
  }

  #finish(id: number, result: R): void {
    this.#results.set(id, result);
    this.#chain.delete(id);
    this.#waitsOn.delete(id);
    for (const dependentId of this.#dependents.get(id) ?? []) {
      const entry = this.#waiting.get(dependentId);
      if (!entry || --entry.missing > 0) continue;
      this.#waiting.delete(dependentId);
      this.#ready.push(entry.task);
    }
    this.#dependents.delete(id);
    if (this.#ready.length > 0) this.#queuePump();
    this.#settle();
  }

  /** Nothing runs or is ready; tasks still waiting can only be waiting on held ones. */
  #isIdle(): boolean {
    return this.#running === 0 && this.#ready.length === 0 && (this.#waiting.size === 0 || this.#held.size > 0);
  }

  #settle(): void {
    if (this.#failure) {
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const waiter of waiters) waiter.reject(this.#failure.error);
      return;
    }
    if (!this.#isIdle()) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const waiter of waiters) waiter.resolve();
  }
}
