import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Agent } from "../core/agent.js";
import type { AgentEvent } from "../core/events.js";
import { defineTool } from "../core/tool.js";
import { todoList } from "../planning/todos/todo-list.js";
import { anthropicModel } from "./anthropic.js";
import { inTurn, startTestServer, type Handler, type TestServer } from "./test-support/http-server.js";
import { sendAnthropicReply } from "./test-support/streamed-replies.js";

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A reply whose usage says how much of the prompt came from the cache and how much was written to it. */
function reply(content: unknown[], cache: { read: number; write: number }): Handler {
  return (res, req) =>
    sendAnthropicReply(res, req, {
      id: "msg",
      type: "message",
      role: "assistant",
      model: "claude-test",
      content: content as { type: string }[],
      stop_reason: content.some((block) => (block as { type: string }).type === "tool_use") ? "tool_use" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 20, output_tokens: 5, cache_read_input_tokens: cache.read, cache_creation_input_tokens: cache.write },
    });
}

const todos = (done: number) => ({
  todos: ["Read the config", "Fix the timeout", "Run the tests"].map((content, i) => ({
    content,
    status: i < done ? "completed" : i === done ? "in_progress" : "pending",
  })),
});
const call = (id: string, name: string, input: unknown) => ({ type: "tool_use", id, name, input });

type Block = { type: string; text?: string; cache_control?: unknown };
type WireBody = { system: Block[]; tools: Block[]; messages: { role: string; content: Block[] }[] };

/** Every block of a request in order, system and tools first, as Anthropic reads the prefix. */
function blocks(body: WireBody): Block[] {
  return [...body.tools, ...body.system, ...body.messages.flatMap((m) => m.content)];
}
const withoutMarks = (list: Block[]) => list.map(({ cache_control: _mark, ...block }) => block);

describe("anthropicModel's prompt cache across a multi-turn run", () => {
  it("marks tools, system and the last stored message, never the recited tail, and reports cached tokens", async () => {
    server = await startTestServer(
      inTurn(
        reply([call("t1", "write_todos", todos(0))], { read: 0, write: 900 }),
        reply([call("t2", "read_file", { path: "config.ts" })], { read: 900, write: 150 }),
        reply([call("t3", "write_todos", todos(1))], { read: 1050, write: 120 }),
        reply([call("t4", "read_file", { path: "timeout.ts" })], { read: 1170, write: 110 }),
        reply([{ type: "text", text: "Done." }], { read: 1280, write: 0 }),
      ),
    );
    const readFile = defineTool({
      name: "read_file",
      description: "Read a file.",
      parameters: z.object({ path: z.string() }),
      readOnly: true,
      execute: ({ path }) => `contents of ${path}`,
    });
    const model = anthropicModel({ model: "claude-test", apiKey: "sk-ant-test", baseURL: server.url, maxRetries: 0 });
    const agent = new Agent({ model, systemPrompt: "You fix configs.", tools: [readFile], plugins: [todoList({ reciteAfterTokens: 0 })] });
    const ends: AgentEvent[] = [];
    agent.on((event) => {
      if (event.type === "model-end") ends.push(event);
    });
    const result = await agent.run("Fix the timeout.");
    expect(result.text).toBe("Done.");

    const bodies = server.requests.map((r) => r.body as WireBody);
    expect(bodies).toHaveLength(5);
    let previousStable: Block[] = [];
    for (const [i, body] of bodies.entries()) {
      const all = blocks(body);
      const prefix = body.tools.length + body.system.length;
      expect(body.tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
      expect(body.system).toEqual([{ type: "text", text: expect.stringMatching(/^You fix configs\./), cache_control: { type: "ephemeral" } }]);
      const marks = all.flatMap((block, at) => (block.cache_control ? [at] : []));
      const end = marks.at(-1) as number;
      // Within Anthropic's limit of four: the tools, the system prompt, where the previous request's
      // stored prefix ended (so the cache is found however long the last turn was), and where this one's ends.
      expect(marks).toEqual([prefix - 2, prefix - 1, ...(i === 0 ? [] : [previousStable.length - 1]), end]);
      const tail = all.slice(end + 1);
      // The first request has no list yet, so no tail; later ones end with the recitation, unmarked.
      if (i === 0) expect(tail).toEqual([]);
      else expect(tail).toEqual([{ type: "text", text: expect.stringMatching(/^<todo-list>/) }]);
      // What the last request stored up to its breakpoint comes back unchanged, so the cache can serve it.
      const stable = withoutMarks(all.slice(0, end + 1));
      expect(stable.slice(0, previousStable.length)).toEqual(previousStable);
      expect(stable.length).toBeGreaterThan(previousStable.length);
      previousStable = stable;
    }

    // The cached counts come through per call and add up over the run.
    expect(ends.map((e) => (e.type === "model-end" ? e.usage?.cacheReadInputTokens : undefined))).toEqual([0, 900, 1050, 1170, 1280]);
    expect(result.usage).toMatchObject({ cacheReadInputTokens: 4400, cacheWriteInputTokens: 1280, outputTokens: 25 });
    expect(result.usage.inputTokens).toBe(5 * 20 + 4400 + 1280);
  });

  it("marks no message of a request that does not say where its tail starts (a one-off prompt)", async () => {
    server = await startTestServer(reply([{ type: "text", text: "ok" }], { read: 0, write: 0 }));
    const model = anthropicModel({ model: "claude-test", apiKey: "sk-ant-test", baseURL: server.url });
    await model.generate({ messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "hi" }], tools: [] });
    const body = server.requests[0]?.body as WireBody;
    expect(body.system[0]?.cache_control).toEqual({ type: "ephemeral" });
    expect(JSON.stringify(body.messages)).not.toContain("cache_control");
  });

  it("marks nothing when the prompt cache is turned off", async () => {
    server = await startTestServer(reply([{ type: "text", text: "ok" }], { read: 0, write: 0 }));
    const model = anthropicModel({ model: "claude-test", apiKey: "sk-ant-test", baseURL: server.url, promptCache: false });
    await model.generate({
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "hi" },
      ],
      tools: [{ name: "noop", description: "Nothing.", parameters: { type: "object" } }],
      ephemeralFrom: 2,
    });
    expect(JSON.stringify(server.requests[0]?.body)).not.toContain("cache_control");
    expect(server.requests[0]?.body.system).toBe("Be brief.");
  });
});
