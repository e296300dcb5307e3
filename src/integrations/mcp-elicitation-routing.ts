import type { ToolResult } from "../core/tool.js";
import {
  ELICITATION_LIMIT,
  elicitationAnswer,
  elicitationQuestion,
  fitsInPausedRun,
  isSameElicitation,
  type McpAnswered,
  type McpElicitation,
  type McpElicitationAnswer,
} from "./mcp-elicitation.js";

/** One tool call in flight on a connection, as far as its server's questions go. */
export type CallInFlight = {
  /** The user's replies to questions this call asked before it was made again; each is used once. */
  answers: McpAnswered[];
  /** Whether the caller can wait for the user (it knows the call by id): else a question is dismissed. */
  canPause: boolean;
  /** Ends the call: its request to the server is cancelled. */
  end: AbortController;
  /** Set when the call was ended with an error: what it returns instead of the server's result. */
  ended?: ToolResult;
  /** Set when the call was ended for a question: the question as the user sees it, and the server's own. */
  asks?: { asker: string; text: string; elicitation: McpElicitation };
};

/** Answers a server's question in this process, without pausing the run. */
export type McpElicitationAnswerer = (request: McpElicitation, ctx: { signal: AbortSignal }) => Promise<McpElicitationAnswer>;

/**
 * Routes one connection's elicitations. A question the user already answered (the call was made
 * again after a pause) gets that answer; without one, an in-process answerer answers; else the call
 * that asked ends and its run pauses with the question. MCP does not say which call a question
 * belongs to, so while several calls are in flight a question waits until every other call has
 * finished or asked too: then the asker is the one call left, or, when several calls ask at once,
 * none can be told apart and each ends with an error asking the model to call again one at a time.
 */
export class ElicitationRouting {
  readonly #calls = new Set<CallInFlight>();
  readonly #waiting: { elicitation: McpElicitation; answer: (answer: McpElicitationAnswer) => void }[] = [];

  constructor(
    /** The server as the user knows it (its name, quoted). */
    private readonly server: () => string,
    private readonly answerer: McpElicitationAnswerer | undefined,
  ) {}

  /** Runs one call, known to the routing while it is in flight. */
  async during<T>(call: CallInFlight, body: () => Promise<T>): Promise<T> {
    this.#calls.add(call);
    try {
      return await body();
    } finally {
      this.#calls.delete(call);
      this.#settle();
    }
  }

  answer(elicitation: McpElicitation, signal: AbortSignal): Promise<McpElicitationAnswer> {
    for (const call of this.#calls) {
      // Replies that did not fit the form were never sent: the one after them (the user's retry) is tried next.
      let problem: string | undefined;
      for (let index; (index = call.answers.findIndex((given) => isSameElicitation(given.elicitation, elicitation))) >= 0; ) {
        const [given] = call.answers.splice(index, 1) as [McpAnswered];
        const answer = elicitationAnswer(elicitation, given.reply);
        if (!("problem" in answer)) return Promise.resolve(answer);
        problem = answer.problem;
      }
      if (problem !== undefined) return Promise.resolve(this.#pause(call, elicitation, `Your last answer could not be used: ${problem}.\n`));
    }
    if (this.answerer) return this.answerer(elicitation, { signal });
    return new Promise((resolve) => {
      const entry = { elicitation, answer: resolve };
      this.#waiting.push(entry);
      signal.addEventListener(
        "abort",
        () => {
          const index = this.#waiting.indexOf(entry);
          if (index >= 0) this.#waiting.splice(index, 1);
          resolve({ action: "cancel" });
        },
        { once: true },
      );
      this.#settle();
    });
  }

  #settle(): void {
    // A call still at work may yet finish without asking: wait until every call in flight has asked.
    if (this.#waiting.length === 0 || this.#waiting.length < this.#calls.size) return;
    const waiting = this.#waiting.splice(0);
    const calls = [...this.#calls];
    const [only] = waiting;
    if (only && waiting.length === 1 && calls.length === 1) {
      only.answer(this.#pause(calls[0] as CallInFlight, only.elicitation, ""));
      return;
    }
    for (const call of calls) {
      const text = `MCP server ${this.server()} asked the user questions while several of its tools were running at once, and MCP does not say which call asked which; this call was stopped. Call its tools one at a time.`;
      this.#end(call, { text, isError: true });
    }
    for (const entry of waiting) entry.answer({ action: "cancel" });
  }

  /** Ends the call so that its run pauses with the question (see mcp-tools); the server hears the question was cancelled. */
  #pause(call: CallInFlight, elicitation: McpElicitation, preface: string): McpElicitationAnswer {
    // Nobody to ask (the tool was called outside an agent): the question is dismissed and the call goes on.
    if (!call.canPause) return { action: "cancel" };
    if (!fitsInPausedRun(elicitation)) {
      const text = `MCP server ${this.server()} asked the user a question larger than ${ELICITATION_LIMIT} characters, too large to put to them; the call was stopped.`;
      this.#end(call, { text, isError: true });
      return { action: "cancel" };
    }
    const asker = `MCP server ${this.server()}`;
    call.asks = { asker, text: `${preface}${elicitationQuestion(elicitation, asker)}`, elicitation };
    // The tool pauses its call with the question (mcp-tools) instead of waiting for the server's result.
    call.end.abort();
    return { action: "cancel" };
  }

  #end(call: CallInFlight, result: ToolResult): void {
    call.ended = result;
    call.end.abort();
  }
}
