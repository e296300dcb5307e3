import type { PendingCall } from "../core/approval.js";
import { boundedText } from "../core/bounded-quote.js";
import { ToolPause, type ToolContext } from "../core/tool.js";
import type { McpAnswered, McpElicitation } from "./mcp-elicitation.js";

/**
 * What an MCP call paused on a server's question keeps (plain JSON, saved with the run): the replies
 * the user gave so far, and the question now waiting, known by its pending call's id.
 */
type ElicitationPauseState = { answers: McpAnswered[]; waiting: { id: string; elicitation: McpElicitation } };

/** The longest question text put to the user; the rest is cut. */
const QUESTION_LIMIT = 8_000;

/**
 * Pauses the call (ToolPause) on the question the server asked: one pending `ask_user` question whose
 * id is the call's id and the question's number in this call, so every question prompt shows it;
 * `asker` says who asks (the text already names them: a prompt shows it as it is, and offers to decline).
 */
export function elicitationPause(
  callId: string,
  answers: readonly McpAnswered[],
  asks: { asker: string; text: string; elicitation: McpElicitation },
): ToolPause {
  const id = `${callId}-q${answers.length + 1}`;
  const args = { question: boundedText(asks.text, QUESTION_LIMIT), asker: asks.asker };
  const question: PendingCall = { id, name: "ask_user", kind: "question", arguments: JSON.stringify(args) };
  const state: ElicitationPauseState = { answers: [...answers], waiting: { id, elicitation: asks.elicitation } };
  return new ToolPause([question], state);
}

/**
 * The replies a call made again after a pause has: those it had, and the user's decision on the
 * question it waited on. A state this code did not save gives none: the server's question is asked again.
 */
export function answersOnResume(resumed: ToolContext["resumed"]): McpAnswered[] {
  if (!resumed || !isPauseState(resumed.state)) return [];
  const { answers, waiting } = resumed.state;
  const decision = resumed.decisions[waiting.id];
  if (decision?.action !== "answer" && decision?.action !== "reject") return [...answers];
  return [...answers, { elicitation: waiting.elicitation, reply: decision }];
}

function isPauseState(state: unknown): state is ElicitationPauseState {
  const candidate = state as Partial<ElicitationPauseState> | null;
  return typeof candidate === "object" && candidate !== null && Array.isArray(candidate.answers) && typeof candidate.waiting?.id === "string";
}
