import type { ToolCall } from "../../core/messages.js";

/**
 * A call's arguments as an object, for reading its fields: empty when the model sent text that is
 * not a JSON object (broken JSON, `null`, a list), which the log keeps as it came.
 */
export function callArguments(call: ToolCall): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(call.arguments);
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
