// stepwise/sqlite: the embedded stores, on better-sqlite3 (a native module, so kept off the package root).
export { SqlitePlanStore } from "./sqlite-plan-store.js";
export type { SqlitePlanStoreOptions } from "./sqlite-plan-store.js";
export { SqliteTaskStore } from "./sqlite-task-store.js";
export { SqliteRunStore } from "./sqlite-run-store.js";
export type { SqliteRunStoreOptions } from "./sqlite-run-store.js";
