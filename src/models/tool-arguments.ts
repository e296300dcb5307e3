import { withinArgumentLimits } from "../core/argument-limits.js";

/**
 * A tool call's arguments as an object, for providers whose wire format wants one (Anthropic's
 * tool_use input, the AI SDK's tool-call input). Arguments the model garbled earlier become {}:
 * the tool result that follows already told the model what was wrong with them. So do arguments
 * past the size and depth limits, which the SDK's JSON encoder could not serialize.
 */
export function argumentsObject(raw: string): Record<string, unknown> {
  if (!withinArgumentLimits(raw)) return {};
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
