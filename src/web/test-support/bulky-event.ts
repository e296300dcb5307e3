import type { AgentEvent } from "../../core/events.js";

/** A logged event of about 1 KB, numbered `n`: a long run's backlog, for streams that are never read. */
export function bulkyEvent(n: number): AgentEvent {
  return {
    type: "tool-end",
    agent: "writer",
    time: n,
    step: n,
    call: { id: `c${n}`, name: "read_file", arguments: "{}" },
    result: { text: `result ${n} ${"x".repeat(1000)}`, isError: false },
    refused: false,
    durationMs: 1,
  };
}
