import { describe, expect, it } from "vitest";
import { collectReferences } from "./touched-references.js";

describe("collectReferences", () => {
  it("takes paths, URLs and ids from tool-call arguments by their keys", () => {
    const refs = collectReferences([
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "c1", name: "write_file", arguments: JSON.stringify({ path: "README.md", content: "see docs/guide.md" }) },
          { id: "c2", name: "fetch", arguments: JSON.stringify({ url: "https://example.com/a?b=1" }) },
          { id: "c3", name: "TaskUpdate", arguments: JSON.stringify({ task_id: "7", status: "completed" }) },
        ],
      },
    ]);
    expect(refs.files).toEqual(["README.md", "docs/guide.md"]);
    expect(refs.urls).toEqual(["https://example.com/a?b=1"]);
    expect(refs.ids).toEqual(["task_id=7"]);
  });

  it("finds URLs and folder paths in plain results without mistaking prose or URL paths for files", () => {
    const refs = collectReferences([
      {
        role: "tool",
        toolCallId: "c1",
        name: "search",
        content: "Found in src/core/agent.ts and ./bench/run.ts (see https://docs.example.org/guide/setup.html), e.g. v1.2 works.",
      },
    ]);
    expect(refs.files).toEqual(["src/core/agent.ts", "./bench/run.ts"]);
    expect(refs.urls).toEqual(["https://docs.example.org/guide/setup.html"]);
  });

  it("walks JSON results for ids", () => {
    const refs = collectReferences([{ role: "tool", toolCallId: "c1", name: "TaskCreate", content: '{"id":"12","subject":"x"}' }]);
    expect(refs.ids).toEqual(["id=12"]);
  });

  it("reads arguments nested too deep to walk as plain text instead of overflowing the stack", () => {
    const deep = '{"path":"notes/a.md","x":' + "[".repeat(100_000) + "]".repeat(100_000) + "}";
    const refs = collectReferences([{ role: "assistant", content: "", toolCalls: [{ id: "c1", name: "write_file", arguments: deep }] }]);
    expect(refs.files).toEqual(["notes/a.md"]);
  });
});
