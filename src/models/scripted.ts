import { cloneMessages, type AssistantMessage, type ToolCall } from "../core/messages.js";
import type { ChatModel, ModelRequest, ModelResponse, ModelStreamPart } from "../core/model.js";
import { sleep } from "../core/abort.js";

/** One model turn: a plain answer, a message with tool calls, or a function of the request. */
export type ScriptedTurn =
  | string
  | { content?: string; toolCalls?: { name: string; arguments: unknown; id?: string }[] }
  | ((req: ModelRequest) => ScriptedTurn);

export interface ScriptedModelOptions {
  id?: string;
  /** Wait this long before answering (honours the request's abort signal). */
  latencyMs?: number;
  /** Characters per streamed text delta. */
  streamChunkSize?: number;
  /**
   * Keep a copy of every request in `requests` (true by default). A model that serves many runs,
   * as a worker's does, turns it off: it would hold every request it ever answered.
   */
  recordRequests?: boolean;
}

export type ScriptedModel = ChatModel & {
  /** requests[i] is a deep copy of what call i received (without its signal); empty when recordRequests is off. */
  readonly requests: ModelRequest[];
  stream(req: ModelRequest): AsyncIterable<ModelStreamPart>;
};

/**
 * A deterministic model for tests and demos: call i answers with turns[i]. Usage is estimated as
 * one token per four characters so token accounting can be exercised without a provider.
 */
export function scriptedModel(turns: ScriptedTurn[], opts: ScriptedModelOptions = {}): ScriptedModel {
  return modelFromTurns((index) => {
    const turn = turns[index];
    if (turn === undefined) {
      throw new Error(
        `scriptedModel has ${turns.length} turn(s) but was called ${index + 1} times; add a turn for call ${index + 1}.`,
      );
    }
    return turn;
  }, opts);
}

/**
 * A deterministic model whose every answer is a function of the request alone, not of how many
 * calls came before: it picks up correctly after a run is resumed from a checkpoint (the demo's brains).
 */
export function reactiveModel(decide: (req: ModelRequest) => ScriptedTurn, opts: ScriptedModelOptions = {}): ScriptedModel {
  return modelFromTurns(() => decide, { ...opts, id: opts.id ?? "reactive" });
}

function modelFromTurns(turnAt: (index: number) => ScriptedTurn, opts: ScriptedModelOptions): ScriptedModel {
  const requests: ModelRequest[] = [];
  const chunkSize = opts.streamChunkSize ?? 16;
  const record = opts.recordRequests ?? true;
  let calls = 0;
  // What a turn function may read (and change) without touching the caller's request or the record.
  const copyOf = (req: ModelRequest): ModelRequest => ({ messages: cloneMessages(req.messages), tools: structuredClone(req.tools) });

  async function generate(req: ModelRequest): Promise<ModelResponse> {
    const index = calls++;
    // Unrecorded, the tool specs (the same at every call) are only read, so they go uncopied.
    const seen = record ? copyOf(req) : { messages: cloneMessages(req.messages), tools: req.tools };
    if (record) requests.push(seen);
    if (opts.latencyMs) await sleep(opts.latencyMs, req.signal);
    req.signal?.throwIfAborted();
    const inputChars = JSON.stringify(seen).length;
    const message = toMessage(resolve(turnAt(index), record ? copyOf(seen) : seen), index);
    const outputChars = JSON.stringify(message).length;
    return { message, usage: { inputTokens: Math.ceil(inputChars / 4), outputTokens: Math.ceil(outputChars / 4) } };
  }

  return {
    id: opts.id ?? "scripted",
    requests,
    generate,
    async *stream(req) {
      const response = await generate(req);
      const text = response.message.content;
      for (let at = 0; at < text.length; at += chunkSize) {
        yield { type: "text-delta", text: text.slice(at, at + chunkSize) };
      }
      for (const call of response.message.toolCalls ?? []) yield { type: "tool-call-start", id: call.id, name: call.name };
      yield { type: "response", response };
    },
  };
}

function resolve(turn: ScriptedTurn, req: ModelRequest): Exclude<ScriptedTurn, (req: ModelRequest) => ScriptedTurn> {
  let current = turn;
  while (typeof current === "function") current = current(req);
  return current;
}

function toMessage(turn: Exclude<ScriptedTurn, (req: ModelRequest) => ScriptedTurn>, index: number): AssistantMessage {
  if (typeof turn === "string") return { role: "assistant", content: turn };
  const message: AssistantMessage = { role: "assistant", content: turn.content ?? "" };
  if (turn.toolCalls && turn.toolCalls.length > 0) {
    message.toolCalls = turn.toolCalls.map(
      (call, j): ToolCall => ({
        id: call.id ?? `call_${index + 1}_${j + 1}`,
        name: call.name,
        arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments ?? {}),
      }),
    );
  }
  return message;
}
