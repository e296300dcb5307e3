// stepwise/runs: the headless run layer and the run-store contract, without the CLI, the viewer or the integrations.
// The stores themselves come from stepwise/sqlite and stepwise/postgres.
export { openRuns } from "./runs.js";
export type { Runs, RunsOptions, StartRunOptions, ResumeRunOptions, RunHandle, ClaimedDrive } from "./runs.js";
export type { RunOutcome } from "./run-driver.js";
export type { FollowOptions } from "./run-events.js";
export { workRuns } from "./run-worker.js";
export { shutdownSignal } from "./shutdown-signal.js";
export type { WorkOptions } from "./run-worker.js";
export type { RunSettings } from "./run-settings.js";
export { openStores, StoreMissingError } from "./store-set.js";
export type { OpenStoresOptions } from "./store-set.js";
export { findRun, RunIdAmbiguousError } from "./find-run.js";
export { runFigures } from "./run-figures.js";
export type { RunFigures } from "./run-figures.js";
export type { StoreSet, ScopedPlanQuery, StoredPlan, StoredPlans } from "./store-set.js";
export { ModelUnavailableError, RunInputError } from "./run-input-error.js";
export { DecisionsError } from "../core/approval.js";
export { STRATEGIES, BASELINE_STRATEGY, parseStrategy } from "./strategies.js";
export type { StrategyName, ModelRole, ModelsByRole } from "./strategies.js";
export { APPROVAL_MODES } from "./approval-mode.js";
export type { ApprovalMode } from "./approval-mode.js";
export type { Checklist, ChecklistItem, ChecklistStatus } from "./checklist.js";
export { RunBusyError, RunLeaseLostError, RunNotFoundError, RUN_STATUSES } from "../stores/run-store.js";
export type { RunStore, RunRecord, RunStatus, NewRun, LoggedEvent, RunCheckpoint, RunLease, RunQuery, RunPage, RunModelUsage, ClaimedRun, SavedRun } from "../stores/run-store.js";
