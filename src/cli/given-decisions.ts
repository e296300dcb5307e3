import { readFileSync } from "node:fs";
import { z } from "zod";
import type { ApprovalDecision, PendingCall } from "../core/approval.js";
import type { PlanDecision } from "../planning/workflows/plan-review.js";
import type { Approver } from "./approval-prompt.js";
import { CliError } from "./cli-error.js";

/**
 * One decision of a `--decisions` file, used in order for whatever waits next. `tool`, when given,
 * names what it is meant for (a tool name, or "plan" for a workflow's plan) and is checked.
 */
const Entry = z
  .object({
    tool: z.string().min(1).optional(),
    action: z.enum(["approve", "reject", "edit", "answer"]),
    /** reject: the reason the model (or the planner) is told. */
    reason: z.string().optional(),
    /** edit a call: its new arguments. */
    arguments: z.unknown().optional(),
    /** edit a plan: its new steps. */
    steps: z.array(z.string().min(1)).min(1).optional(),
    /** answer a question (ask_user's, or a tool's such as an MCP server's). */
    text: z.string().optional(),
  })
  .strict();
type Entry = z.infer<typeof Entry>;

export const DECISIONS_FORMAT =
  'a JSON array of decisions, used in order, e.g. [{"action":"approve"}, {"tool":"write_file","action":"reject","reason":"not now"}, ' +
  '{"action":"edit","arguments":{…}}, {"tool":"plan","action":"edit","steps":["…"]}, {"action":"answer","text":"…"}]';

/** `--decisions FILE`: read and checked before the run starts, so a typo never surfaces halfway. */
export function decisionsFromFile(path: string, onProblem: (text: string) => void): Approver {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new CliError(`cannot read --decisions ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`--decisions ${path} is not JSON (${error instanceof Error ? error.message : String(error)}); give ${DECISIONS_FORMAT}`);
  }
  const parsed = z.array(Entry).safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new CliError(`--decisions ${path}${where}: ${issue?.message ?? "not accepted"}; give ${DECISIONS_FORMAT}`);
  }
  return givenDecisions(parsed.data, onProblem);
}

/**
 * Decides from a list, in order. A decision that does not fit what waits (another tool, an edit
 * without arguments) is not guessed at: the run stays paused and `onProblem` says why.
 */
export function givenDecisions(entries: readonly Entry[], onProblem: (text: string) => void): Approver {
  const queue = [...entries];
  let used = 0;
  const next = (what: string): Entry | null => {
    const entry = queue.shift();
    if (!entry) {
      onProblem(`the --decisions file has no decision left for ${what}; the run stays paused`);
      return null;
    }
    used++;
    if (entry.tool !== undefined && entry.tool !== what) {
      onProblem(`decision ${used} of --decisions is for ${entry.tool}, but ${what} waits; the run stays paused`);
      return null;
    }
    return entry;
  };
  const unfit = (entry: Entry, what: string, needs: string): null => {
    onProblem(`decision ${used} of --decisions (${entry.action}) does not fit ${what}: ${needs}; the run stays paused`);
    return null;
  };
  return {
    async decideCall(call: PendingCall): Promise<ApprovalDecision | null> {
      const entry = next(call.name);
      if (!entry) return null;
      if (call.kind === "question") {
        if (entry.action === "answer" && entry.text !== undefined) return { action: "answer", text: entry.text };
        // Rejecting a question declines it (an MCP server's question is told the user declined).
        if (entry.action === "reject") return { action: "reject", reason: entry.reason ?? "declined by the --decisions file" };
        return unfit(entry, call.name, 'a question needs {"action":"answer","text":"…"} or {"action":"reject"}');
      }
      switch (entry.action) {
        case "approve":
          return { action: "approve" };
        case "reject":
          return { action: "reject", reason: entry.reason ?? "rejected by the --decisions file" };
        case "edit":
          return entry.arguments !== undefined ? { action: "edit", arguments: entry.arguments } : unfit(entry, call.name, 'an edit needs "arguments"');
        case "answer":
          return unfit(entry, call.name, "only ask_user questions take an answer");
      }
    },
    async decidePlan(): Promise<PlanDecision | null> {
      const entry = next("plan");
      if (!entry) return null;
      switch (entry.action) {
        case "approve":
          return { action: "approve" };
        case "reject":
          return { action: "reject", feedback: entry.reason ?? "rejected by the --decisions file" };
        case "edit":
          return entry.steps ? { action: "edit", steps: entry.steps } : unfit(entry, "plan", 'a plan edit needs "steps"');
        case "answer":
          return unfit(entry, "plan", "a plan takes approve, reject or edit");
      }
    },
  };
}

/** `--approve-all`: every call and plan is approved; a question still needs a person, so the run pauses there. */
export function approveEverything(onProblem: (text: string) => void): Approver {
  return {
    async decideCall(call) {
      if (call.kind !== "question") return { action: "approve" };
      onProblem(`--approve-all cannot answer the agent's question (${call.name}); the run stays paused`);
      return null;
    },
    decidePlan: async () => ({ action: "approve" }),
  };
}
