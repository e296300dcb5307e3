import type { Message } from "../../core/messages.js";
import type { ModelRequest } from "../../core/model.js";

/** What a scripted brain reads off a request: how far the run got and what the tools returned. */
export type RequestFacts = {
  /** Assistant turns already in the request: the brain's position in its script. */
  turn: number;
  /** The latest result of a tool, by tool name. */
  lastResult(tool: string): string | undefined;
  /** Every recorded result of a tool, with the arguments its call was made with, oldest first. */
  results(tool: string): { args: Record<string, unknown>; text: string }[];
  /** The last user message that is not an ephemeral hint or recitation: the agent's actual input. */
  input: string;
};

const INTERRUPTED = "Interrupted:";

export function readRequest(req: ModelRequest): RequestFacts {
  const messages: Message[] = req.messages;
  // A result answers a call of the turn before it: call ids need only be unique within a turn (a
  // resumed run's model may hand out the same ids again), so each is looked up in its own turn.
  const answered: { name: string; args: Record<string, unknown>; text: string }[] = [];
  let turnCalls = new Map<string, Record<string, unknown>>();
  for (const m of messages) {
    if (m.role === "assistant") turnCalls = new Map((m.toolCalls ?? []).map((call) => [call.id, parseArgs(call.arguments)]));
    // A call the agent answered as interrupted (the run was killed before its result was recorded) has no result.
    else if (m.role === "tool" && !m.content.startsWith(INTERRUPTED)) answered.push({ name: m.name, args: turnCalls.get(m.toolCallId) ?? {}, text: m.content });
  }
  const results = (tool: string) => answered.filter((m) => m.name === tool).map(({ args, text }) => ({ args, text }));
  const inputs = messages.filter((m) => m.role === "user" && !m.content.startsWith("<"));
  return {
    turn: messages.filter((m) => m.role === "assistant").length,
    results,
    lastResult: (tool) => results(tool).at(-1)?.text,
    input: inputs.at(-1)?.content ?? "",
  };
}

function parseArgs(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
