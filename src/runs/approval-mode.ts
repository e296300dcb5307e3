import type { PermissionPolicy } from "../core/permissions.js";
import { RunInputError } from "./run-input-error.js";

/** Which calls of a run wait for a person: none, writes (tools that are not read-only), plans, or all of them. */
export const APPROVAL_MODES = ["none", "writes", "plan", "all"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export function parseApprovalMode(mode: string): ApprovalMode {
  if ((APPROVAL_MODES as readonly string[]).includes(mode)) return mode as ApprovalMode;
  throw new RunInputError(`unknown approval mode "${mode}"; use one of: ${APPROVAL_MODES.join(", ")}`);
}

/** Which tool calls wait for the user. Questions (ask_user) always do; plans: see `approvesPlans`. */
export function approvalPolicy(mode: ApprovalMode): PermissionPolicy | undefined {
  return mode === "writes" || mode === "all" ? {} : undefined;
}

/** `plan` and `all`: every new plan waits for the user (the notebook pauses on it, workflows ask before running it). */
export function approvesPlans(mode: ApprovalMode): boolean {
  return mode === "plan" || mode === "all";
}
