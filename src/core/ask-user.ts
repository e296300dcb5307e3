import { z } from "zod";
import { defineTool, type Tool } from "./tool.js";

const DESCRIPTION = `Ask the user a question and wait for the answer. Use it only when you cannot go on without
information or a choice that only the user has (a missing requirement, a preference, a confirmation before
something irreversible such as abandoning a plan). Ask one clear question; the run pauses until the user answers,
and the answer comes back as this tool's result.`;

// One schema for every ask_user tool made: its JSON Schema is converted once (see toJsonSchema).
const PARAMETERS = z.object({ question: z.string().min(1).describe("The question, in one or two sentences.") });

/** The built-in `ask_user` tool: every call pauses the run until the user's answer arrives via `resume`. */
export function askUserTool(): Tool {
  return defineTool({
    name: "ask_user",
    description: DESCRIPTION,
    parameters: PARAMETERS,
    readOnly: true,
    interactive: true,
    // Runs only if a policy explicitly allows it without the user: then there is nobody to answer.
    execute: () => ({ text: "No user is available to answer; decide yourself and say what you assumed.", isError: true }),
  });
}
