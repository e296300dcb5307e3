// Regression: `run_settings` kept only workspace and approval, so a paused run resumed in a shell
// without OPENAI_BASE_URL made the approved write and then sent the whole conversation to the
// provider's default public host. A run now keeps the endpoint it was started with (never the key)
// and every resume uses it, or refuses, naming it. The viewer, missing the key, said 500 and gave a
// command-line hint; it now answers 503 in words for the browser.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { inTurn, startTestServer, type TestServer } from "../../src/models/test-support/http-server.js";
import { assistantTurn } from "../../src/models/test-support/streamed-replies.js";
import { CLI, freshHome, runCli, workspace } from "./cli-harness.js";

const distEntry = new URL("../../dist/runs/index.js", import.meta.url).href;
const { openRuns } = (await import(distEntry)) as typeof import("../../src/runs/index.js");

const servers: TestServer[] = [];
const stops: (() => void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  for (const server of servers.splice(0)) await server.close();
});

/** A provider on a local port: the agent writes report.md (a call that waits for approval), then answers. */
async function provider(): Promise<TestServer> {
  const write = assistantTurn({ calls: [{ id: "w1", name: "write_file", arguments: { path: "report.md", content: "# Report\n" } }] });
  const server = await startTestServer(inTurn(write, assistantTurn("Wrote report.md.")));
  servers.push(server);
  return server;
}

/** Starts a run against `server` that pauses on its write; returns its id. */
async function pausedRun(home: string, server: TestServer): Promise<string> {
  const args = ["run", "Write the report", "-s", "todos", "-m", "openai:gpt-test", "-w", workspace(home), "--approval", "writes"];
  const paused = await runCli(args, { home, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: `${server.url}/v1` } });
  expect(paused.code, paused.stderr).toBe(3);
  expect(server.requests).toHaveLength(1);
  return /^run (\S+) /m.exec(paused.stdout)?.[1] ?? "";
}

describe("a run keeps the endpoint it was started with", () => {
  it("--resume in a shell without OPENAI_BASE_URL sends every request of the run to that endpoint", async () => {
    const home = freshHome();
    const server = await provider();
    const runId = await pausedRun(home, server);
    const runs = openRuns({ store: join(home, "stepwise.db") });
    try {
      const settings = await runs.stores.runs.loadSettings(runId);
      expect(settings).toMatchObject({ endpoint: `${server.url}/v1` });
      expect(JSON.stringify(settings)).not.toContain("sk-test");
    } finally {
      await runs.close();
    }

    const resumed = await runCli(["run", "--resume", runId, "--approve-all"], { home, env: { OPENAI_API_KEY: "sk-test" } });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain("Wrote report.md.");
    expect(existsSync(join(home, "ws", "report.md"))).toBe(true);
    // The resumed request reached the run's own endpoint, with the write's result in it.
    expect(server.requests).toHaveLength(2);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain("report.md");
  }, 60_000);

  it("a resume whose OPENAI_BASE_URL names another endpoint is refused, naming the run's", async () => {
    const home = freshHome();
    const server = await provider();
    const runId = await pausedRun(home, server);
    const elsewhere = "http://127.0.0.1:9/v1";
    const refused = await runCli(["run", "--resume", runId, "--approve-all"], { home, env: { OPENAI_API_KEY: "sk-test", OPENAI_BASE_URL: elsewhere } });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`run ${runId} was started against ${server.url}/v1, but this process's OPENAI_BASE_URL is ${elsewhere}`);
    expect(server.requests).toHaveLength(1);
    expect(existsSync(join(home, "ws", "report.md"))).toBe(false);
  }, 60_000);

  it("the viewer without the key answers Approve with 503, saying what its server lacks; with the key it resumes against the run's endpoint", async () => {
    const home = freshHome();
    const server = await provider();
    const runId = await pausedRun(home, server);
    const approve = async (url: string) => {
      const details = (await (await fetch(`${url}api/runs/${runId}`)).json()) as { pending: { id: string }[] };
      const decisions = Object.fromEntries(details.pending.map((call) => [call.id, { action: "approve" }]));
      return fetch(`${url}api/runs/${runId}/decisions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ decisions }) });
    };

    const keyless = await viewer(home, {});
    const refused = await approve(keyless);
    expect(refused.status).toBe(503);
    const { error } = (await refused.json()) as { error: string };
    expect(error).toBe(
      'The viewer\'s server cannot continue this run: Model "openai:gpt-test" needs an API key: set OPENAI_API_KEY in the environment. ' +
        'Set it where "stepwise ui" runs and restart the viewer; the run is still waiting, and your decision was not applied.',
    );
    expect(error).not.toContain("--model");
    expect(server.requests).toHaveLength(1);

    const keyed = await viewer(home, { OPENAI_API_KEY: "sk-test" });
    expect((await approve(keyed)).status).toBe(202);
    // The run's events, live, until the viewer's drive of it stops.
    const runs = openRuns({ store: join(home, "stepwise.db") });
    try {
      for await (const _ of runs.events(runId)) void _;
      expect(await runs.get(runId)).toMatchObject({ status: "final", answer: "Wrote report.md." });
    } finally {
      await runs.close();
    }
    expect(server.requests).toHaveLength(2);
  }, 60_000);
});

/** `stepwise ui` in its own process with exactly `env`; resolves with its URL once it listens. */
function viewer(home: string, env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [CLI, "ui", "--port", "0"], { cwd: home, env: { PATH: process.env["PATH"] ?? "", HOME: home, STEPWISE_HOME: home, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  stops.push(() => child.kill("SIGKILL"));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const url = /Stepwise plan viewer: (http:\/\/\S+\/)/.exec(out)?.[1];
      if (url) resolve(url);
    });
    child.on("exit", (code) => reject(new Error(`stepwise ui exited (${String(code)}): ${out}`)));
  });
}
