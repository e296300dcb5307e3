// stepwise/postgres: the shared stores, on pg (kept off the package root).
export { PostgresPlanStore } from "./postgres-plan-store.js";
export type { PostgresPlanStoreOptions } from "./postgres-plan-store.js";
export { PostgresTaskStore } from "./postgres-task-store.js";
export type { PostgresTaskStoreOptions, TaskBoardSubscription } from "./postgres-task-store.js";
export { PostgresRunStore, RUNS_CHANNEL, CLAIMABLE_CHANNEL } from "./postgres-run-store.js";
export type { PostgresRunStoreOptions } from "./postgres-run-store.js";
