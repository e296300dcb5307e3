import type { PlanData } from "../planning/notebook/plan.js";

/** Which stored plans to read across every scope: the newest first, at most `limit`. */
export type ScopedPlanQuery = {
  limit: number;
  /** Only the plans whose id starts with this (a plan id typed by a person may be a prefix). */
  idPrefix?: string;
};

/** One page of plans across scopes, each with its scope, and how many matched in all. */
export type ScopedPlanPage = { plans: { scope: string; plan: PlanData }[]; total: number };
