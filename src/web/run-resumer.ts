import { z } from "zod";
import { approvalDecisionSchema, type ApprovalDecision, type ApprovalDecisions } from "../core/approval.js";
import type { ModelUnavailableError } from "../runs/run-input-error.js";
import type { Runs } from "../runs/runs.js";

/** The body of `POST /runs/:id/decisions`: a decision for every pending call, by call id. */
export const decisionsBodySchema = z.object({ decisions: z.record(z.string(), approvalDecisionSchema) });

export function toDecisions(body: z.infer<typeof decisionsBodySchema>): ApprovalDecisions {
  const decisions: ApprovalDecisions = {};
  for (const [id, d] of Object.entries(body.decisions)) {
    const decision: ApprovalDecision =
      d.action === "reject" ? { action: "reject", ...(d.reason?.trim() ? { reason: d.reason.trim() } : {}) } : d;
    decisions[id] = decision;
  }
  return decisions;
}

/**
 * Why the viewer cannot continue a run, for the person at the browser: what the server's process
 * lacks (a key, the run's endpoint), where to set it, and that the run still waits.
 */
export function cannotContinueHere(error: ModelUnavailableError): string {
  const missing = error.message.replace(/[.\s]+$/, "");
  return `The viewer's server cannot continue this run: ${missing}. Set it where "stepwise ui" runs and restart the viewer; the run is still waiting, and your decision was not applied.`;
}

/**
 * Continues paused runs in the viewer's process through the run layer, so their events land in the
 * store and the page follows them like any other run.
 */
export class RunResumer {
  readonly #runs: Runs;
  readonly #active = new Map<string, Promise<void>>();
  readonly #errors = new Map<string, string>();
  readonly #stop = new AbortController();

  constructor(runs: Runs) {
    this.#runs = runs;
  }

  isResuming(runId: string): boolean {
    return this.#active.has(runId);
  }

  /** Why the last resume of this run failed in the viewer, if it did. */
  error(runId: string): string | undefined {
    return this.#errors.get(runId);
  }

  /**
   * Takes the run over and drives it in the background; rejects (`RunBusyError`) when another process
   * holds it, and returns false when it is already being resumed here.
   */
  async start(runId: string, decisions: ApprovalDecisions): Promise<boolean> {
    if (this.#active.has(runId)) return false;
    this.#errors.delete(runId);
    const handle = await this.#runs.resume(runId, decisions, { signal: this.#stop.signal });
    const done = handle.done
      .then(() => undefined)
      .catch((error: unknown) => {
        this.#errors.set(runId, error instanceof Error ? error.message : String(error));
      })
      .finally(() => this.#active.delete(runId));
    this.#active.set(runId, done);
    return true;
  }

  /** Stops every resumed run after its current step (state saved) and waits for them. */
  async close(): Promise<void> {
    this.#stop.abort();
    await Promise.all(this.#active.values());
  }
}
