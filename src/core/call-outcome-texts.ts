// What a model reads about a call that did not run as it asked: an agent's and a workflow's calls alike.
import { boundedQuote } from "./bounded-quote.js";

/** The result of a call the permission policy refuses. */
export function deniedCallText(toolName: string): string {
  return `Denied: the permission policy does not allow ${boundedQuote(toolName, 64)} here. Do not retry it; find another way or tell the user.`;
}

/** The result of a call the user rejected, with their reason when they gave one. */
export function rejectedCallText(reason: string | undefined): string {
  const said = reason?.trim();
  return `The user rejected this call${said ? `: ${said}${/[.!?]$/.test(said) ? "" : "."}` : "."} Do not repeat it unchanged.`;
}

/** Added to the result of a call the user edited before approving it. */
export function editedCallNote(editedArguments: string): string {
  return `The user edited this call before approving it; it ran with these arguments instead of yours: ${editedArguments}`;
}

/** The result of a call that may or may not have run: the run stopped before its result was recorded. */
export const INTERRUPTED_CALL_TEXT =
  "Interrupted: the run stopped before this call's result was recorded. Check whether it took effect before repeating it.";
