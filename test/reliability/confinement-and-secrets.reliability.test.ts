import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/core/agent.js";
import { startMcpHttpServer } from "../../src/integrations/mcp-http-server.js";
import { noteTools } from "../../src/integrations/test-support/note-tools.js";
import { openAICompatibleModel } from "../../src/models/openai-compatible.js";
import { inTurn, sendJson, startTestServer, type Handler } from "../../src/models/test-support/http-server.js";
import { sendOpenAIReply } from "../../src/models/test-support/streamed-replies.js";
import { PlanNotebook } from "../../src/planning/notebook/plan-notebook.js";
import { runSwapRace } from "../../src/tools/test-support/swap-race.js";
import { tempWorkspace } from "../../src/tools/test-support/temp-workspace.js";
import { startViewer } from "../../src/web/viewer-server.js";
import { openRuns } from "../../src/runs/runs.js";
import { STRATEGIES } from "../../src/runs/strategies.js";
import { freshHome, runCli } from "../cli/cli-harness.js";
import { recordFigure } from "./figures.js";

let casesTried = 0;
let escapes = 0;
const escaped: string[] = [];

afterAll(() => {
  recordFigure("5-confinement", `confinement cases tried ${casesTried}, escapes ${escapes}`);
});

function check(ok: boolean, what: string): void {
  casesTried++;
  if (!ok) {
    escapes++;
    escaped.push(what);
  }
}

const SECRET = "outside-secret-8812";

describe("workspace tools refuse every path outside the root", () => {
  it("for .., absolute, symlinked and encoded paths, with each tool", async () => {
    const from = escaped.length;
    const ws = tempWorkspace({ "inside.txt": "inside", "docs/guide.md": "guide" });
    try {
      const { root, outside } = ws;
      writeFileSync(path.join(outside, "secret.txt"), SECRET);
      mkdirSync(path.join(outside, "deep"));
      writeFileSync(path.join(outside, "deep", "secret.txt"), SECRET);
      symlinkSync(path.join(outside, "secret.txt"), path.join(root, "file-link"));
      symlinkSync(outside, path.join(root, "dir-link"));
      symlinkSync(path.join(outside, "new.txt"), path.join(root, "dangling"));
      mkdirSync(path.join(root, "nested"));
      symlinkSync("../../outside", path.join(root, "nested", "up-link"));
      symlinkSync(path.join(root, "loop-b"), path.join(root, "loop-a"));
      symlinkSync(path.join(root, "loop-a"), path.join(root, "loop-b"));
      const before = ws.snapshot(outside);
      const dots = ["..", "../", "../outside", "../outside/secret.txt", "./../outside/secret.txt", "docs/../../outside/secret.txt",
        "docs/./../../outside/deep/secret.txt", "a/b/../../../outside/secret.txt", "..\\outside\\secret.txt", "docs\\..\\..\\outside\\secret.txt",
        "../../../../../../../../etc/passwd", "inside.txt/../../outside/secret.txt", "....//outside", ".. /outside/secret.txt"];
      const absolute = [path.join(outside, "secret.txt"), outside, "/etc/passwd", "/", "//etc/passwd", "/proc/self/environ", "C:\\Windows\\win.ini",
        "c:/windows/win.ini", "\\\\server\\share\\secret.txt", "file:///etc/passwd", "~/.ssh/id_rsa", path.join(root, "..", "outside", "secret.txt")];
      const encoded = ["%2e%2e/outside/secret.txt", "%2E%2E%2Foutside%2Fsecret.txt", "..%2foutside%2fsecret.txt", "..%5coutside%5csecret.txt",
        "%252e%252e/outside/secret.txt", "%c0%ae%c0%ae/outside/secret.txt", "%u002e%u002e/outside", "inside.txt\u0000../outside/secret.txt",
        "\uff0e\uff0e/outside/secret.txt", "..\u2215outside\u2215secret.txt", "docs/%2e%2e/%2e%2e/outside"];
      const links = ["file-link", "dir-link", "dir-link/secret.txt", "dir-link/deep/secret.txt", "dir-link/new-folder/new.txt", "dangling",
        "nested/up-link", "nested/up-link/secret.txt", "loop-a", "loop-b/x"];
      const calls: Record<string, (target: string) => Record<string, unknown>> = {
        read_file: (p) => ({ path: p }),
        list_dir: (p) => ({ path: p, recursive: true }),
        search: (p) => ({ pattern: "secret", path: p }),
        write_file: (p) => ({ path: p, content: "written by the model" }),
        edit_file: (p) => ({ path: p, old_text: SECRET, new_text: "edited" }),
      };
      for (const target of [...dots, ...absolute, ...encoded, ...links]) {
        for (const [name, args] of Object.entries(calls)) {
          const result = await ws.tool(name).invoke(args(target));
          // Refused, or a name that only looks like an escape ("....//outside" is a folder named "....") used
          // inside: never the outside's content, never a change outside, never a file beside the workspace.
          const leaked = result.text.includes(SECRET) || result.text.includes("root:x:0:0");
          const changedOutside = JSON.stringify(ws.snapshot(outside)) !== JSON.stringify(before);
          const besideRoot = readdirSync(path.dirname(root)).sort().join(",") !== "outside,workspace";
          check(!leaked && !changedOutside && !besideRoot, `${name}(${JSON.stringify(target)}) → ${result.text.slice(0, 120)}`);
        }
      }
      // Links inside the workspace never lead out, even for a recursive list or search from the root.
      for (const name of ["list_dir", "search"]) {
        const result = await ws.tool(name).invoke(name === "search" ? { pattern: "secret", path: "." } : { path: ".", recursive: true });
        check(!result.text.includes(SECRET) && !result.text.includes("deep/secret.txt"), `${name} from the root reached outside`);
      }
      check(JSON.stringify(ws.snapshot(outside)) === JSON.stringify(before), "the outside folder changed");
      expect(escaped.slice(from)).toEqual([]);
    } finally {
      ws.remove();
    }
  });
});

describe("a second process swaps a workspace folder for a link to outside, in a tight loop", () => {
  it("while every file tool runs on paths through it: nothing outside is read, listed, written or changed", async () => {
    const race = await runSwapRace(400);
    recordFigure(
      "5-confinement",
      `symlink-swap race: ${race.calls} tool calls during ${race.swaps} swaps by a second process, ${race.refused} refused or failed, escapes ${race.escapes.length}`,
    );
    expect(race.swaps).toBeGreaterThan(0);
    expect(race.escapes).toEqual([]);
  });
});

describe("there is no built-in shell tool", () => {
  it("in the tool list of every CLI strategy's first model request", async () => {
    const from = escaped.length;
    const SHELL = /^(shell|bash|sh|exec|run|run_command|execute|terminal|cmd|powershell|subprocess|system)$/i;
    for (const strategy of STRATEGIES) {
      const server = await startTestServer(inTurn((res, req) => {
        const names: string[] = (req.body?.tools ?? []).map((t: { function: { name: string } }) => t.function.name);
        toolLists.push({ strategy, names });
        sendJson(res, 400, { error: { message: "stop here" } });
      }));
      const toolLists: { strategy: string; names: string[] }[] = [];
      const home = freshHome();
      try {
        await runCli(["run", "list the files", "--strategy", strategy, "--model", "openai:gpt-test", "--workspace", home], {
          home,
          env: { OPENAI_API_KEY: "sk-none", OPENAI_BASE_URL: `${server.url}/v1` },
        });
        const names = toolLists.flatMap((l) => l.names);
        // Workflows may ask for plain text first (no tools); every tool list any role was offered is checked.
        // An agent strategy's request carries its full tool list: an empty one would test nothing.
        if (["notebook", "tasks", "todos", "plan-tool"].includes(strategy)) check(names.includes("read_file"), `${strategy}: no tool list seen`);
        for (const name of names) check(!SHELL.test(name), `${strategy} offers a shell tool: ${name}`);
        check(!names.some((n) => /shell|bash|exec|command/i.test(n)), `${strategy}: ${names.join(", ")}`);
      } finally {
        await server.close();
        rmSync(home, { recursive: true, force: true });
      }
    }
    expect(escaped.slice(from)).toEqual([]);
  });
});

const API_KEY = "sk-stepwise-FAKE-9f8e7d6c5b4a39281706";

function completion(message: Record<string, unknown>) {
  return {
    id: "chatcmpl-1",
    object: "chat.completion",
    created: 1,
    model: "gpt-test",
    choices: [{ index: 0, message: { role: "assistant", content: null, ...message }, finish_reason: message["tool_calls"] ? "tool_calls" : "stop" }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
  };
}
const toolCall = (name: string, args: unknown) => ({ tool_calls: [{ id: `call_${name}`, type: "function", function: { name, arguments: JSON.stringify(args) } }] });
const echoKey: Handler = (res, req) =>
  sendJson(res, 401, { error: { message: `Incorrect API key provided: ${String(req.headers.authorization).replace("Bearer ", "")}` } });

/** Every file below a folder, as text (binary SQLite pages included: a key would show as its bytes). */
function everythingIn(folder: string): string {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(path.join(e.parentPath, e.name)).toString("latin1"))
    .join("\n");
}

describe("API keys never reach logs, events, saved state or the viewer", () => {
  it("in an agent run in code, succeeding and failing", async () => {
    const from = escaped.length;
    for (const handler of [
      inTurn((res, req) => sendOpenAIReply(res, req, completion(toolCall("view_historical_plans", {}))), (res, req) => sendOpenAIReply(res, req, completion({ content: "done" }))),
      echoKey,
      (res: Parameters<Handler>[0]) => sendJson(res, 500, { error: { message: `upstream failed for key ${API_KEY}` } }),
    ]) {
      const server = await startTestServer(handler);
      try {
        const model = openAICompatibleModel({ model: "gpt-test", apiKey: API_KEY, baseURL: `${server.url}/v1`, maxRetries: 1, retryBaseDelayMs: 1 });
        const agent = new Agent({ model, plugins: [new PlanNotebook()] });
        const events: unknown[] = [];
        agent.on((e) => events.push(e));
        const error = await agent.run("hello").then(() => null, (e: unknown) => e);
        check(server.requests.every((r) => r.headers.authorization === `Bearer ${API_KEY}`), "the key was not even sent: the case tests nothing");
        const seen = JSON.stringify({ events, state: agent.saveState(), memory: agent.memory, error: error instanceof Error ? [error.message, error.stack, { ...error }] : error });
        check(!seen.includes(API_KEY), `the key appears in ${seen.slice(seen.indexOf(API_KEY) - 80, seen.indexOf(API_KEY) + 40)}`);
      } finally {
        await server.close();
      }
    }
    expect(escaped.slice(from)).toEqual([]);
  });

  it("in the CLI's stdout, stderr, run log, checkpoints and the viewer's page and JSON", async () => {
    const from = escaped.length;
    const home = freshHome();
    const workspace = freshHome();
    try {
      for (const handler of [
        inTurn((res, req) => sendOpenAIReply(res, req, completion(toolCall("list_dir", { path: "." }))), (res, req) => sendOpenAIReply(res, req, completion({ content: "listed" }))),
        echoKey,
      ]) {
        const server = await startTestServer(handler);
        try {
          const result = await runCli(["run", "list the files", "--strategy", "notebook", "--model", "openai:gpt-test", "--workspace", workspace], {
            home,
            env: { OPENAI_API_KEY: API_KEY, OPENAI_BASE_URL: `${server.url}/v1` },
          });
          check(server.requests.some((r) => r.headers.authorization === `Bearer ${API_KEY}`), "the CLI never sent the key: the case tests nothing");
          check(!`${result.stdout}\n${result.stderr}`.includes(API_KEY), `the key in the CLI's output: ${result.stderr}`);
        } finally {
          await server.close();
        }
      }
      check(!everythingIn(home).includes(API_KEY), "the key is in the store folder (run log, events, checkpoints)");
      const runs = openRuns({ store: path.join(home, "stepwise.db") });
      const viewer = await startViewer({ runs });
      try {
        const pages = [await (await fetch(viewer.url)).text(), await (await fetch(`${viewer.url}runs`)).text()];
        const runs = JSON.parse(pages[1] ?? "[]") as { id: string }[];
        check(runs.length === 2, `the viewer lists ${runs.length} runs, not the two made`);
        for (const run of runs) {
          pages.push(await (await fetch(`${viewer.url}runs/${run.id}`)).text(), await (await fetch(`${viewer.url}runs/${run.id}/plans`)).text());
        }
        check(!pages.join("\n").includes(API_KEY), "the key is in the viewer's page or JSON");
      } finally {
        await viewer.close();
        await runs.close();
      }
      expect(escaped.slice(from)).toEqual([]);
    } finally {
      rmSync(home, { recursive: true, force: true });
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});

describe("the MCP HTTP server refuses requests without its token", () => {
  it("with no, wrong or malformed Authorization headers, and accepts the right one", async () => {
    const from = escaped.length;
    const server = await startMcpHttpServer({ tools: noteTools(), token: "mcp-token-55" });
    try {
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } } });
      const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
      for (const authorization of [undefined, "", "Bearer", "Bearer ", "Bearer wrong", "bearer mcp-token-5", "Basic bWNwLXRva2VuLTU1", "mcp-token-55", "Bearer mcp-token-55x", "Bearer  mcp-token-55 extra"]) {
        for (const method of ["POST", "GET", "DELETE"]) {
          const response = await fetch(server.url, { method, headers: { ...headers, ...(authorization !== undefined ? { authorization } : {}) }, ...(method === "POST" ? { body } : {}) });
          await response.text();
          check(response.status === 401, `${method} with ${JSON.stringify(authorization)} got ${response.status}`);
        }
      }
      const accepted = await fetch(server.url, { method: "POST", headers: { ...headers, authorization: "Bearer mcp-token-55" }, body });
      await accepted.text();
      expect(accepted.status).toBe(200);
      expect(escaped.slice(from)).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
