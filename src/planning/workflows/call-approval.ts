import { editedArguments, type PendingCall } from "../../core/approval.js";
import { deniedCallText, editedCallNote, INTERRUPTED_CALL_TEXT, rejectedCallText } from "../../core/call-outcome-texts.js";
import { decidePermission, type PermissionPolicy } from "../../core/permissions.js";
import type { Tool, ToolResult } from "../../core/tool.js";
import { stepCall, type StepAt } from "./workflow-recorder.js";
import type { WorkflowRun } from "./workflow-run.js";

/**
 * One of a workflow's own tool calls (a ReWOO step, a compiler task) held for the user: waiting for
 * their decision, or `started` once approved (or, for a call that may write, once it runs). A run
 * killed after that finds it started and does not make the call again.
 */
export type HeldCall = { call: PendingCall; started?: true };

/** The calls a workflow holds, by call id; the run keeps them with its approvals (WorkflowApprovals). */
export type HeldCalls = Record<string, HeldCall>;

/** What `invokeWithApproval` returns for a call that waits for the user: the run pauses on them (`pauseOnHeldCalls`). */
export const HELD = Symbol("held");

/**
 * Runs one of the workflow's own tool calls as an agent would under the same permission policy:
 * allowed calls run, denied ones get the policy's refusal, and calls that need the user are held
 * (the workflow pauses on them). Resumed with the user's decision, an approved or edited call runs
 * once, and a rejected one gets the rejection as its result, in the words an agent uses. A call that
 * may write and was under way when the run was killed is answered as interrupted, never made again.
 */
export async function invokeWithApproval<P, X extends object>(
  run: WorkflowRun<P, X>,
  permissions: PermissionPolicy | undefined,
  tool: Tool,
  args: unknown,
  at: StepAt,
): Promise<ToolResult | typeof HELD> {
  const call = stepCall(tool.name, args, at.stepId);
  const { held } = run;
  const mine = held[call.id];
  if (mine?.started) {
    delete held[call.id];
    return run.recorder.toolNotRun(mine.call, { text: INTERRUPTED_CALL_TEXT, isError: true }, at.round);
  }
  if (mine) {
    const decision = run.decisions[call.id];
    if (!decision) return HELD;
    if (decision.action === "reject" || decision.action === "answer") {
      delete held[call.id];
      // A question's answer is its result, as an agent's ask_user gets it.
      const result = decision.action === "answer" ? { text: decision.text, isError: false } : { text: rejectedCallText(decision.reason), isError: true };
      return run.recorder.toolNotRun(mine.call, result, at.round, decision.action === "reject");
    }
    const edited = decision.action === "edit" ? editedArguments(decision) : undefined;
    // Saved as started before it runs: from here on a killed run reports the call interrupted.
    held[call.id] = { call: { ...mine.call, ...(edited !== undefined ? { arguments: edited } : {}) }, started: true };
    await run.checkpoint();
    const result = await run.recorder.invokeTool(tool, edited ?? args, at);
    // A step cut short by the abort is worked again when the run goes on: the call then counts as interrupted.
    if (!run.aborted) delete held[call.id];
    return edited === undefined ? result : { ...result, text: `${result.text}\n${editedCallNote(edited)}` };
  }
  const decided = decidePermission(permissions, call, tool, false);
  if (decided === "deny") return run.recorder.toolNotRun(call, { text: deniedCallText(tool.name), isError: true }, at.round);
  if (decided === "ask") {
    // Never ask the user about a call that could not run as written.
    const problem = tool.check?.(call.arguments);
    if (problem) return run.recorder.toolNotRun(call, problem, at.round);
    held[call.id] = { call: { ...call, kind: tool.interactive ? "question" : "approval" } };
    return HELD;
  }
  if (tool.readOnly) return run.recorder.invokeTool(tool, args, at);
  // A call that may write is saved as started before it runs, as an agent's calls are: a run killed
  // while it runs reports it interrupted instead of making it twice. A read-only one is made again.
  held[call.id] = { call: { ...call, kind: "approval" }, started: true };
  await run.checkpoint();
  const result = await run.recorder.invokeTool(tool, args, at);
  if (!run.aborted) delete held[call.id];
  return result;
}

/** The calls the run waits on, in the order they were held. */
export function heldCalls(held: HeldCalls): PendingCall[] {
  return Object.values(held)
    .filter((entry) => !entry.started)
    .map((entry) => structuredClone(entry.call));
}
