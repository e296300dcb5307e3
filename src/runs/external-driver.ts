import type { ApprovalDecisions } from "../core/approval.js";

/**
 * A driver outside the run layer (Restate, say) that holds some runs' leases: decisions for a run it
 * holds go to it, since resuming the run here would be refused. Implementations live with their
 * integration, so the run layer needs none of their SDKs.
 */
export interface ExternalDriver {
  /** True when `holder`, a run's lease holder, is this driver (`restate:<invocation id>`). */
  holds(holder: string): boolean;
  /** Hands the decisions to the driver, which goes on with the run; rejects when it refuses them. */
  decide(runId: string, decisions: ApprovalDecisions): Promise<void>;
}
