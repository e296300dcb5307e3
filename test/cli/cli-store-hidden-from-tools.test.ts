import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { inTurn, startTestServer, type Handler } from "../../src/models/test-support/http-server.js";
import { sendOpenAIReply } from "../../src/models/test-support/streamed-replies.js";
import { freshHome, runCli } from "./cli-harness.js";

function reply(message: Record<string, unknown>): Handler {
  return (res, req) =>
    sendOpenAIReply(res, req, {
      id: "chatcmpl-1",
      model: "gpt-test",
      choices: [{ message: { role: "assistant", content: null, ...message }, finish_reason: message["tool_calls"] ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
}
const call = (id: string, name: string, args: unknown) => ({ id, type: "function", function: { name, arguments: JSON.stringify(args) } });

const base = freshHome();
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("stepwise run keeps its store away from the workspace tools", () => {
  it("when STEPWISE_HOME is a folder inside the workspace: not listed, read or written", async () => {
    const workspace = path.join(base, "ws");
    const home = path.join(workspace, "state");
    mkdirSync(home, { recursive: true });
    writeFileSync(path.join(workspace, "notes.md"), "notes");
    const server = await startTestServer(
      inTurn(
        reply({
          tool_calls: [
            call("c1", "list_dir", { path: ".", recursive: true }),
            call("c2", "read_file", { path: "state/stepwise.db" }),
            call("c3", "write_file", { path: "state/stepwise.db", content: "overwritten" }),
          ],
        }),
        reply({ content: "done" }),
      ),
    );
    try {
      const result = await runCli(["run", "look around", "--strategy", "todos", "--model", "openai:gpt-test", "--workspace", workspace], {
        home,
        cwd: workspace,
        env: { OPENAI_API_KEY: "sk-none", OPENAI_BASE_URL: `${server.url}/v1` },
      });
      expect(result.stderr).toBe("");
      const messages: { role: string; tool_call_id?: string; content: string }[] = server.requests[1]?.body.messages ?? [];
      const results = Object.fromEntries(messages.filter((m) => m.role === "tool").map((m) => [m.tool_call_id, m.content]));
      expect(results["c1"]).toBe("notes.md (5 bytes)");
      expect(results["c2"]).toMatch(/is in "state", which holds the run store/);
      expect(results["c3"]).toMatch(/is in "state", which holds the run store/);
      expect(readFileSync(path.join(home, "stepwise.db")).subarray(0, 15).toString()).toBe("SQLite format 3");
    } finally {
      await server.close();
    }
  });
});
