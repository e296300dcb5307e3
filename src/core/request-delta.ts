import { cloneMessages, type Message } from "./messages.js";

/**
 * A model request as the event log records it: what changed since the previous request of the same
 * run. Request n is request n-1's first `kept` messages followed by `added`, so a run of many steps
 * logs each message about once rather than its whole history at every call. When memory is
 * rewritten (context folding), the common prefix shrinks and the rewritten messages come as
 * `added`; the first request of a run (or of a resumed run) keeps nothing and is logged whole.
 */
export type RequestDelta = {
  /** How many leading messages are the previous request's, unchanged. */
  kept: number;
  /** The messages after them. */
  added: Message[];
  /** Where the ephemeral tail (hints, recitations) starts in the whole request, when known. */
  ephemeralFrom?: number;
};

/** Rebuilds a request's messages from the previous one (empty for the first) and its delta. */
export function applyRequestDelta(previous: readonly Message[], delta: RequestDelta): Message[] {
  if (!Number.isInteger(delta.kept) || delta.kept < 0 || delta.kept > previous.length) {
    throw new Error(`this request keeps ${delta.kept} messages of a previous request that has ${previous.length}`);
  }
  return [...previous.slice(0, delta.kept), ...delta.added];
}

/** Remembers the last request of one run, and says how the next one differs from it. */
export class RequestDeltas {
  #previous: Message[] = [];

  /** The delta of `messages` from the request before; `messages` becomes the one to compare with next. */
  next(messages: readonly Message[], ephemeralFrom?: number): RequestDelta {
    let kept = 0;
    while (kept < messages.length && kept < this.#previous.length && sameMessage(messages[kept]!, this.#previous[kept]!)) kept++;
    this.#previous = cloneMessages(messages);
    return { kept, added: cloneMessages(messages.slice(kept)), ...(ephemeralFrom !== undefined ? { ephemeralFrom } : {}) };
  }

  /** The next request is compared with nothing (a new run): it is logged whole. */
  reset(): void {
    this.#previous = [];
  }
}

function sameMessage(a: Message, b: Message): boolean {
  if (a.role !== b.role || a.content !== b.content) return false;
  if (a.role === "tool") return b.role === "tool" && a.toolCallId === b.toolCallId && a.name === b.name;
  if (a.role !== "assistant" || b.role !== "assistant") return true;
  if ((a.toolCalls === undefined) !== (b.toolCalls === undefined)) return false;
  const calls = a.toolCalls ?? [];
  const others = b.toolCalls ?? [];
  return (
    calls.length === others.length &&
    calls.every((call, i) => call.id === others[i]!.id && call.name === others[i]!.name && call.arguments === others[i]!.arguments)
  );
}
