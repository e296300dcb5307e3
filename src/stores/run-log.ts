import type { AgentEvent } from "../core/events.js";

export type RunStatus = "running" | "finished" | "no-answer" | "failed" | "aborted" | "awaiting-approval" | "max-steps";

/** One agent run as the CLI and the viewer list it. */
export type RunRecord = {
  id: string;
  task: string;
  strategy: string;
  model: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  answer: string | null;
};

export type LoggedEvent = { seq: number; event: AgentEvent };

/**
 * Where runs, their event streams and their resumable state are kept, so that another process (the
 * viewer, `stepwise run --resume`) can follow or continue a run. Every call commits on its own: a
 * process killed between two calls leaves everything before readable.
 */
export interface RunLog {
  createRun(run: Omit<RunRecord, "createdAt" | "updatedAt" | "answer" | "status">): RunRecord;
  updateRun(id: string, change: { status?: RunStatus; answer?: string | null }): void;
  getRun(id: string): RunRecord | undefined;
  /** Newest first. */
  listRuns(limit?: number): RunRecord[];
  appendEvent(runId: string, event: AgentEvent): number;
  /** Events of a run with a sequence number above `afterSeq`, oldest first. */
  events(runId: string, afterSeq?: number, limit?: number): LoggedEvent[];
  /** Replaces the run's checkpoint (the agent state to resume from). */
  saveCheckpoint(runId: string, state: unknown): void;
  loadCheckpoint(runId: string): unknown;
  /** How the run was started (its workspace, options), so another process can rebuild it. */
  saveSettings(runId: string, settings: unknown): void;
  loadSettings(runId: string): unknown;
  close(): void;
}
