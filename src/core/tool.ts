import { z, type ZodType } from "zod";
import type { ApprovalDecisions, PendingCall } from "./approval.js";
import { describeJsonSchema, toJsonSchema } from "./json-schema.js";
import { repairArguments } from "./argument-repair.js";
import { argumentLimitProblem } from "./argument-limits.js";

/**
 * What a tool returns to the model. `isError` results are shown to the model so it can correct itself.
 * `paused`: the call stopped for the user (see ToolPause) and has no result yet. `value`: the result
 * as data, when it differs from what the model is shown (read_file's is the file's text, without the
 * line numbers `text` adds): what a workflow passes on where a later step uses this result.
 */
export type ToolResult = { text: string; isError: boolean; paused?: ToolPaused; value?: string };

/** What a result stands for where another step uses it: its `value`, or the text the model reads. */
export function toolResultValue(result: ToolResult): string {
  return result.value ?? result.text;
}

/** A call that stopped for the user: the calls it waits on, and what it needs to go on (plain JSON). */
export type ToolPaused = { calls: PendingCall[]; state: unknown };

/**
 * Thrown by a tool's `execute` whose work waits for the user (a workflow it runs paused on a call):
 * the agent's run pauses with `calls` pending, and once they are decided the tool is called again
 * with the same arguments and `ctx.resumed` (this `state` and the decisions on `calls`).
 */
export class ToolPause extends Error {
  override name = "ToolPause";
  constructor(
    readonly calls: PendingCall[],
    readonly state: unknown,
  ) {
    super(`The call waits for the user's decision on ${calls.map((call) => call.id).join(", ")}.`);
  }
}

export interface ToolContext {
  signal?: AbortSignal;
  agentName?: string;
  toolCallId?: string;
  /** The run that made the call: the parent of any run the tool starts. */
  runId?: string;
  /**
   * Set when the user edited this call before approving it: the arguments the model proposed, as the
   * JSON text it sent. The call runs with the edited arguments.
   */
  editedFrom?: string;
  /** Set when the call goes on after a ToolPause: what it paused with, and the user's decisions on its calls. */
  resumed?: { state: unknown; decisions: ApprovalDecisions };
}

export interface Tool {
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the arguments, as sent to the model. */
  readonly parameters: object;
  /** True when the tool only reads: the plan tool's planner and permission policies rely on it. */
  readonly readOnly: boolean;
  /** The zod schema behind `parameters`, for adapters that want it (MCP, AI SDK). */
  readonly schema?: ZodType;
  /** Every call pauses the run for the user's approval, whatever the permission policy's defaults. */
  readonly requiresApproval?: boolean;
  /** Every call pauses the run for the user's answer (`ask_user`). */
  readonly interactive?: boolean;
  /**
   * Its successful results say how a call the user edited differs from the model's proposal (from
   * `ctx.editedFrom`), so the agent adds no generic note with the edited arguments to them.
   */
  readonly explainsEdits?: boolean;
  /** Never throws: bad input and failures come back as `{ isError: true }` with a readable text. */
  invoke(args: unknown, ctx?: ToolContext): Promise<ToolResult>;
  /**
   * Checks the arguments without running the tool: the error `invoke` would return for them, or
   * null. The agent uses it so that a call is never held for the user's approval with bad arguments.
   */
  check?(args: unknown): ToolResult | null;
}

export interface ToolDefinition<S extends ZodType> {
  name: string;
  description: string;
  parameters: S;
  readOnly?: boolean;
  requiresApproval?: boolean;
  interactive?: boolean;
  explainsEdits?: boolean;
  /** Return a string, any JSON-able value, or a ToolResult. Throw ToolError for a rule the model broke. */
  execute(args: z.output<S>, ctx: ToolContext): unknown;
}

/**
 * Thrown by a tool's `execute` when the model asked for something the rules refuse. Its message is
 * shown to the model verbatim, so it should say what was wrong and what to call instead.
 */
export class ToolError extends Error {
  override name = "ToolError";
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

export function defineTool<S extends ZodType>(def: ToolDefinition<S>): Tool {
  if (!TOOL_NAME.test(def.name)) {
    throw new Error(`Tool name "${def.name}" is not accepted: use 1-64 letters, digits, "_" or "-".`);
  }
  const parameters = toJsonSchema(def.parameters);
  const shape = describeJsonSchema(parameters);
  const validate = (args: unknown): { data: z.output<S> } | { error: ToolResult } => {
    const parsed = parseArguments(def.name, args, shape);
    if ("error" in parsed) return { error: { text: parsed.error, isError: true } };
    const checked = repairArguments(def.parameters, parsed.value);
    if (!checked.success) return { error: { text: formatInvalidArguments(def.name, checked.issues, shape), isError: true } };
    return { data: checked.data as z.output<S> };
  };
  return {
    name: def.name,
    description: def.description,
    parameters,
    readOnly: def.readOnly ?? false,
    schema: def.parameters,
    ...(def.requiresApproval ? { requiresApproval: true } : {}),
    ...(def.interactive ? { interactive: true } : {}),
    ...(def.explainsEdits ? { explainsEdits: true } : {}),
    check(args) {
      const checked = validate(args);
      return "error" in checked ? checked.error : null;
    },
    async invoke(args, ctx = {}) {
      const checked = validate(args);
      if ("error" in checked) return checked.error;
      try {
        return toToolResult(await def.execute(checked.data, ctx));
      } catch (error) {
        if (error instanceof ToolPause) return { text: error.message, isError: false, paused: { calls: error.calls, state: error.state } };
        if (error instanceof ToolError) return { text: error.message, isError: true };
        const message = error instanceof Error ? error.message : String(error);
        return { text: `Tool "${def.name}" failed: ${message}`, isError: true };
      }
    },
  };
}

function parseArguments(tool: string, args: unknown, shape: string): { value: unknown } | { error: string } {
  // Checked before parsing: deep nesting would overflow the stack of the recursive code below.
  const unbounded = argumentLimitProblem(args);
  if (unbounded) return { error: `Arguments for tool "${tool}" were refused. ${unbounded} Expected: ${shape}` };
  let value = args;
  if (typeof args === "string") {
    if (args.trim() === "") value = {};
    else {
      try {
        value = JSON.parse(args);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return { error: `Arguments for tool "${tool}" are not valid JSON (${reason}). Send one JSON object: ${shape}` };
      }
    }
  }
  if (value === undefined || value === null) value = {};
  if (typeof value !== "object" || Array.isArray(value)) {
    const got = Array.isArray(value) ? "an array" : `a ${typeof value}`;
    return { error: `Arguments for tool "${tool}" must be a JSON object, got ${got}. Expected: ${shape}` };
  }
  return { value };
}

function formatInvalidArguments(tool: string, issues: readonly z.core.$ZodIssue[], shape: string): string {
  const lines = issues.slice(0, 8).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "(arguments)";
    return `- ${where}: ${issue.message}`;
  });
  if (issues.length > 8) lines.push(`- … and ${issues.length - 8} more`);
  return [`Invalid arguments for tool "${tool}":`, ...lines, `Expected: ${shape}`].join("\n");
}

function toToolResult(value: unknown): ToolResult {
  if (isToolResult(value)) return value;
  if (typeof value === "string") return { text: value, isError: false };
  if (value === undefined) return { text: "Done.", isError: false };
  return { text: JSON.stringify(value, null, 2), isError: false };
}

function isToolResult(value: unknown): value is ToolResult {
  if (typeof value !== "object" || value === null) return false;
  const keys = Object.keys(value);
  const candidate = value as Record<string, unknown>;
  // Only these keys: any other JSON a tool returns is its result, shown as JSON.
  const shaped = keys.every((key) => key === "text" || key === "isError" || key === "value");
  const valued = !("value" in candidate) || typeof candidate["value"] === "string";
  return shaped && valued && typeof candidate["text"] === "string" && typeof candidate["isError"] === "boolean";
}
