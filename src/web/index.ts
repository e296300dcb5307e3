// stepwise/viewer: the plan viewer, a web page over a run store.
export { startViewer } from "./viewer-server.js";
export type { Viewer, ViewerOptions, RunSummary } from "./viewer-server.js";
export type { EventStreamStat } from "./run-event-stream.js";
