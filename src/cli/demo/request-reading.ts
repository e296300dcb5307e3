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
  const argsById = new Map<string, Record<string, unknown>>();
  for (const m of messages) {
    if (m.role !== "assistant") continue;
    for (const call of m.toolCalls ?? []) argsById.set(call.id, parseArgs(call.arguments));
  }
  // A call the agent answered as interrupted (the run was killed before its result was recorded) has no result.
  const toolMessages = messages.filter(
    (m): m is Extract<Message, { role: "tool" }> => m.role === "tool" && !m.content.startsWith(INTERRUPTED),
  );
  const results = (tool: string) =>
    toolMessages.filter((m) => m.name === tool).map((m) => ({ args: argsById.get(m.toolCallId) ?? {}, text: m.content }));
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
