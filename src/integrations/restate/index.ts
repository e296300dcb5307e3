// stepwise/restate: Stepwise runs as a Restate workflow, and the calls that start, decide and follow them.
export { restateRunService, RESTATE_RUN_SERVICE } from "./restate-run-service.js";
export type { RestateRunInput, RestateRunResult, RestateRunStatus, RestatePause, RestateRunServiceOptions } from "./restate-run-service.js";
export { startRestateRun, decideRestateRun, restateDriver, restateRunStatus, restateRunResult } from "./restate-run-client.js";
export type { RestateIngress } from "./restate-run-client.js";
export { serveRestateRuns, registerRestateDeployment } from "./restate-endpoint.js";
export type { RestateEndpoint, RestateEndpointOptions } from "./restate-endpoint.js";
export { JournalClock, journaledModel, journaledTool } from "./journaled-calls.js";
export type { JournaledModelOptions } from "./journaled-calls.js";
export { journaledTaskStore } from "./journaled-task-store.js";
export { JournalSteps } from "./journal-steps.js";
