import { afterEach, describe, expect, it } from "vitest";
import { freshSchema } from "../runs/run-process-harness.js";
import { freshHome, startCli, workspace, type StartedCli } from "./cli-harness.js";

// `stepwise run` in one process, `stepwise ui` in another, on one store: the viewer's API lists the
// run and streams its events live. Needs PostgreSQL for the shared case, and a build (dist/).

const started: StartedCli[] = [];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const { child } of started.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function cli(args: string[], home: string): StartedCli {
  const command = startCli(args, { home, stdin: "open" });
  started.push(command);
  return command;
}

/** Server-Sent Events as they arrive: each is handed to `onEvent`, which says when to stop. */
async function followEvents(url: string, onEvent: (type: string, id: number) => boolean): Promise<void> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal });
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const id = /^id: (\d+)$/m.exec(block)?.[1];
        const data = /^data: (.*)$/m.exec(block)?.[1];
        if (id && data && onEvent((JSON.parse(data) as { type: string }).type, Number(id))) return;
      }
    }
  } finally {
    controller.abort();
  }
}

async function watchARunLive(store: string | undefined): Promise<void> {
  const home = freshHome();
  const ws = workspace(home);
  const storeArgs = store ? ["--store", store] : [];
  const ui = cli(["ui", "--port", "0", ...storeArgs], home);
  const viewer = (await ui.printed(/plan viewer: (http:\/\/127\.0\.0\.1:\d+\/)/))[1]!;

  // The run pauses before its write and waits for an answer on its standard input.
  const run = cli(["run", "Report", "-s", "todos", "-m", "scripted:demo", "-w", ws, "--approval", "writes", ...storeArgs], home);
  const runId = (await run.printed(/^run (\S+) \(todos\)/m))[1]!;
  await run.printed(/The agent wants to call write_file/);

  const listed = (await (await fetch(new URL("/api/runs", viewer))).json()) as Record<string, unknown>[];
  const mine = listed.find((r) => r["id"] === runId);
  expect(mine).toMatchObject({ id: runId, strategy: "todos", model: "scripted:demo", status: "awaiting-user" });
  expect(Object.keys(mine ?? {}).sort()).toEqual(["created", "durationMs", "id", "inputTokens", "model", "modelCalls", "outputTokens", "status", "strategy", "task", "updated"]);
  expect(Date.parse(String(mine?.["updated"]))).toBeGreaterThanOrEqual(Date.parse(String(mine?.["created"])));
  expect((await (await fetch(new URL(`/api/runs/${runId}`, viewer))).json()) as unknown).toMatchObject({
    run: { id: runId, status: "awaiting-user" },
    pending: [{ name: "write_file" }],
  });

  // Everything so far arrives from the backlog; the approval then lets the run go on, and its
  // remaining events reach the stream while the run process is still running them.
  let resumed = false;
  const after: string[] = [];
  await followEvents(new URL(`/api/runs/${runId}/events`, viewer).href, (type) => {
    if (type === "approval-requested" && !resumed) run.child.stdin!.write("approve\n");
    if (type === "run-resumed") resumed = true;
    else if (resumed) after.push(type);
    return resumed && type === "run-end";
  });
  expect(after).toContain("tool-end");
  expect(after.at(-1)).toBe("run-end");
  expect(await run.exited).toBe(0);
  ui.child.kill("SIGINT");
  expect(await ui.exited).toBe(0);
}

describe("stepwise run and stepwise ui in two processes on one store", () => {
  it("PostgreSQL: GET /api/runs lists the run, and its events stream live (LISTEN/NOTIFY)", async () => {
    const schema = await freshSchema();
    cleanups.push(schema.drop);
    await watchARunLive(schema.url);
  });

  it("SQLite: the same through the file", async () => {
    await watchARunLive(undefined);
  });
});
