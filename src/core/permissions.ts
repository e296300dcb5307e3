import { withinArgumentLimits } from "./argument-limits.js";
import type { ToolCall } from "./messages.js";
import type { Tool } from "./tool.js";

/** What happens to a tool call: run it, pause the run for the user's approval, or refuse it. */
export type PermissionDecision = "allow" | "ask" | "deny";

/** A fixed decision, or one computed from the call's parsed arguments. */
export type PermissionRule = PermissionDecision | ((args: unknown, call: ToolCall) => PermissionDecision);

/**
 * Which tool calls run, pause or are refused. The first of these that speaks decides:
 * `tools[name]`, `decide`, then the defaults — planning (plugin) tools and read-only tools
 * allowed, every other tool (one that writes) asked.
 */
export interface PermissionPolicy {
  tools?: Record<string, PermissionRule>;
  decide?: (call: ToolCall, tool: Tool) => PermissionDecision | undefined;
  /** Tools of planning plugins (plan, board, todo tools; see Plugin.planningTools). Default "allow". */
  planning?: PermissionDecision;
  /** Tools marked readOnly. Default "allow". */
  readOnly?: PermissionDecision;
  /** Every other tool. Default "ask". */
  write?: PermissionDecision;
}

/** Decides one call. Without a policy everything runs, except tools that always need the user. */
export function decidePermission(
  policy: PermissionPolicy | undefined,
  call: ToolCall,
  tool: Tool,
  isPlanningTool: boolean,
): PermissionDecision {
  const rule = policy?.tools?.[call.name];
  if (rule !== undefined) return typeof rule === "function" ? rule(parseArgumentsLoosely(call.arguments), call) : rule;
  if (tool.interactive || tool.requiresApproval) return "ask";
  if (!policy) return "allow";
  const decided = policy.decide?.(call, tool);
  if (decided !== undefined) return decided;
  if (isPlanningTool) return policy.planning ?? "allow";
  if (tool.readOnly) return policy.readOnly ?? "allow";
  return policy.write ?? "ask";
}

/** The parsed arguments, or the text itself when it is not JSON or is past the argument limits. */
function parseArgumentsLoosely(text: string): unknown {
  if (!withinArgumentLimits(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
