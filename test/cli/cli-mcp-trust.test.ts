import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exitCodeOf } from "../../src/cli/run-endings.js";
import { openStores } from "../../src/runs/store-set.js";
import { startHttpMcpServer } from "../../src/integrations/test-support/mcp-http-server.js";
import { inTurn, startTestServer } from "../../src/models/test-support/http-server.js";
import { assistantTurn } from "../../src/models/test-support/streamed-replies.js";
import { freshHome, runCli, tsxCommandLine, workspace } from "./cli-harness.js";

const TEST_SERVER = tsxCommandLine("src/integrations/test-support/mcp-stdio-server.ts");

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
});

/** Every byte of the home's SQLite files, to look for a secret anywhere in them. */
function storeBytes(home: string): string {
  return readdirSync(home)
    .filter((name) => name.startsWith("stepwise.db"))
    .map((name) => readFileSync(join(home, name)).toString("latin1"))
    .join("");
}

describe("an --mcp URL's credentials", () => {
  const PASSWORD = "hunter2-secret";
  const KEY = "KEY-1234567890abcdef";

  it("are sent (the user part as Basic authorization) but never kept with the run; --resume takes them again", async () => {
    const mcp = await startHttpMcpServer();
    stops.push(mcp.stop);
    const url = mcp.url.replace("http://", `http://alice:${PASSWORD}@`) + `?api_key=${KEY}&team=planners`;
    const readHeader = assistantTurn({ calls: [{ name: "docs__read_header", arguments: { name: "authorization" } }] });
    const model = await startTestServer(inTurn(readHeader, assistantTurn("done")));
    stops.push(model.close);
    const home = freshHome();
    const env = { OPENAI_API_KEY: "sk-none", OPENAI_BASE_URL: `${model.url}/v1` };
    const start = ["run", "Check the header", "-s", "todos", "-m", "openai:gpt-test", "-w", workspace(home), "--approval", "writes", "--mcp", `docs=${url}`];

    const paused = await runCli(start, { home, env });
    expect(paused.code, paused.stderr).toBe(exitCodeOf("awaiting-user"));
    const stores = openStores(join(home, "stepwise.db"));
    const [run] = await stores.runs.listRuns(1);
    const settings = (await stores.runs.loadSettings(run!.id)) as { mcp: { servers: Record<string, string> } };
    await stores.close();
    expect(settings.mcp.servers["docs"]).toBe(`${mcp.url.replace("http://", "http://alice:[redacted]@")}?api_key=[redacted]&team=planners`);
    expect(storeBytes(home)).not.toContain(PASSWORD);
    expect(storeBytes(home)).not.toContain(KEY);
    // What signs the servers a run keeps is readable by the user alone.
    expect(statSync(join(home, "mcp-signing.key")).mode & 0o777).toBe(0o600);

    // Without them, the resume says where to give them, and nothing runs.
    const without = await runCli(["run", "--resume"], { home, env, input: "a\n" });
    expect(without.code).toBe(exitCodeOf("usage"));
    expect(without.stderr).toBe("stepwise: MCP server docs: the run keeps its URL without the credentials in it; give it again with --mcp docs=<URL> (or --mcp-config)\n");

    const resumed = await runCli(["run", "--resume", "--mcp", `docs=${url}`], { home, env, input: "a\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    const toolResult = (model.requests.at(-1)?.body.messages as { role: string; content: string }[]).find((m) => m.role === "tool");
    expect(toolResult?.content).toBe(`Basic ${Buffer.from(`alice:${PASSWORD}`).toString("base64")}`);
    for (const output of [paused, without, resumed].flatMap((r) => [r.stdout, r.stderr])) {
      expect(output).not.toContain(PASSWORD);
      expect(output).not.toContain(KEY);
    }
    expect(storeBytes(home)).not.toContain(PASSWORD);
    expect(storeBytes(home)).not.toContain(KEY);
  }, 60_000);

  it("are not echoed when the server cannot be reached", async () => {
    const home = freshHome();
    const result = await runCli(["run", "a task", "-m", "scripted:demo", "-w", workspace(home), "--mcp", `docs=http://alice:${PASSWORD}@127.0.0.1:1/mcp?token=${KEY}`], { home });
    expect(result.code).toBe(exitCodeOf("failed"));
    expect(result.stderr).toMatch(/^stepwise: MCP server docs: Could not connect to MCP server http:\/\/127\.0\.0\.1:1\/mcp: /);
    expect(result.stderr).not.toContain(PASSWORD);
    expect(result.stderr).not.toContain(KEY);
  });
});

describe("a run planted in the store by someone who can write to it", () => {
  it("does not make a worker run its MCP command: the run fails to resume there, saying why; the worker's own server of that name is used instead", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const marker = join(home, "pwned");
    const planted = `node -e "require('fs').writeFileSync('${marker}', 'ran')"`;
    const stores = openStores(join(home, "stepwise.db"));
    const settings = (mcp: Record<string, unknown>) => ({ workspace: ws, approval: "none", mcp });
    // As another machine's driver would leave them: running, lease run out. One unsigned, one with a signature made up.
    await stores.runs.createRun({ id: "planted", task: "Report", strategy: "todos", model: "scripted:demo" }, settings({ servers: { evil: planted } }), "elsewhere:1:x", 1);
    await stores.runs.createRun(
      { id: "forged", task: "Report", strategy: "todos", model: "scripted:demo" },
      settings({ servers: { evil: planted }, signature: "ab".repeat(32) }),
      "elsewhere:1:y",
      1,
    );
    await stores.close();

    // --resume-backoff 1: the refused runs are due again at once, for the worker below that has the server.
    const refused = await runCli(["worker", "--once", "--resume-backoff", "1"], { home });
    expect(refused.code, refused.stderr).toBe(0);
    for (const id of ["planted", "forged"]) {
      expect(refused.stdout).toContain(
        `run ${id} (todos): failed: the run names MCP servers this Stepwise home did not set (their settings carry no signature of its key), so they are not started: evil (${JSON.stringify(planted)})`,
      );
    }
    expect(existsSync(marker)).toBe(false);

    const own = await runCli(["worker", "--once", "--mcp", `evil=${TEST_SERVER}`], { home });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stdout).toContain("run planted (todos): final");
    expect(own.stdout).toContain("run forged (todos): final");
    expect(existsSync(marker)).toBe(false);
    expect(readFileSync(join(ws, "report.md"), "utf8")).toContain("| b.txt | 1 | bravo |");
  }, 60_000);

  it("does not start either on --resume, unless the command gives a server of that name itself", async () => {
    const home = freshHome();
    const ws = workspace(home);
    const marker = join(home, "pwned");
    const stores = openStores(join(home, "stepwise.db"));
    await stores.runs.createRun(
      { id: "planted", task: "Report", strategy: "todos", model: "scripted:demo" },
      { workspace: ws, approval: "none", mcp: { servers: { evil: `node -e "require('fs').writeFileSync('${marker}', 'ran')"` } } },
      "elsewhere:1:x",
      1,
    );
    await stores.close();
    const refused = await runCli(["run", "--resume", "planted"], { home });
    expect(refused.code).toBe(exitCodeOf("usage"));
    expect(refused.stderr).toMatch(/^stepwise: the run names MCP servers this Stepwise home did not set/);
    expect(existsSync(marker)).toBe(false);
    // Another server given does not vouch for the planted one: it is not signed on the way through.
    const other = await runCli(["run", "--resume", "planted", "--mcp", `other=${TEST_SERVER}`], { home });
    expect(other.code).toBe(exitCodeOf("usage"));
    expect(other.stderr).toMatch(/^stepwise: the run names MCP servers this Stepwise home did not set .*: evil /);
    expect(existsSync(marker)).toBe(false);
    const given = await runCli(["run", "--resume", "planted", "--mcp", `evil=${TEST_SERVER}`], { home });
    expect(given.code, given.stderr).toBe(0);
    expect(existsSync(marker)).toBe(false);
  }, 60_000);
});
