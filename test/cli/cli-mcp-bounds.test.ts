import { statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inTurn, startTestServer, type Handler, type TestServer } from "../../src/models/test-support/http-server.js";
import { assistantTurn } from "../../src/models/test-support/streamed-replies.js";
import { freshHome, runCli, tsxCommandLine, workspace } from "./cli-harness.js";

const hostileServer = (behaviour: string) => tsxCommandLine("src/integrations/test-support/serve-hostile-stdio.ts", behaviour);
const call = (name: string) => assistantTurn({ calls: [{ name, arguments: {} }] });

const servers: TestServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

async function run(behaviour: string, ...turns: Handler[]) {
  const model = await startTestServer(inTurn(...turns));
  servers.push(model);
  const home = freshHome();
  const result = await runCli(["run", "use the server", "-s", "todos", "-m", "openai:gpt-test", "-w", workspace(home), "--mcp", `srv=${hostileServer(behaviour)}`], {
    home,
    env: { OPENAI_API_KEY: "sk-none", OPENAI_BASE_URL: `${model.url}/v1` },
  });
  const offered = (i: number): string[] => model.requests[i]?.body.tools.map((t: { function: { name: string } }) => t.function.name) ?? [];
  return { result, model, home, offered };
}

describe("stepwise run --mcp with a server that offers too much", () => {
  it("offers 100 of a server's 30,000 tools and says on stderr what was left out", async () => {
    const { result, offered } = await run("many-tools", assistantTurn("ok"));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('stepwise: MCP server "hostile-many-tools": only its first 100 tools are offered to the model and the rest were left out');
    expect(offered(0).filter((name) => name.startsWith("srv__"))).toHaveLength(100);
  }, 60_000);

  it("connects a server whose tool list pages forever, with what its first 100 pages listed", async () => {
    const { result, offered } = await run("endless-pages", assistantTurn("ok"));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain("its tool list went on past 100 pages");
    expect(offered(0).filter((name) => name.startsWith("srv__"))).toHaveLength(100);
  }, 60_000);

  it("runs with tools whose names collide once made model-safe and cut to 64 characters", async () => {
    const { result, offered } = await run("colliding-names", assistantTurn("ok"));
    expect(result.code, result.stderr).toBe(0);
    const names = offered(0).filter((name) => name.startsWith("srv__"));
    expect(new Set(names).size).toBe(4);
  }, 60_000);

  it("gives the model an 8 MB result cut to 40,000 characters, and keeps the store small", async () => {
    const { result, model, home } = await run("huge-result", call("srv__dump"), assistantTurn("ok"));
    expect(result.code, result.stderr).toBe(0);
    const toolMessage = (model.requests[1]?.body.messages as { role: string; content: string }[]).find((m) => m.role === "tool");
    expect(toolMessage?.content.length).toBeLessThan(40_100);
    expect(toolMessage?.content).toMatch(/… \(8348608 more characters left out\)$/);
    const size = (file: string) => statSync(join(home, file), { throwIfNoEntry: false })?.size ?? 0;
    expect(size("stepwise.db") + size("stepwise.db-wal")).toBeLessThan(2_000_000);
  }, 60_000);
});
