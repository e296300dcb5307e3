import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { ChatModel, ModelRequest } from "../core/model.js";
import type { RunRecord } from "../stores/run-store.js";
import { openRuns, type Runs } from "./runs.js";
import { workRuns } from "./run-worker.js";
import type { RunOutcome } from "./run-driver.js";

const dirs: string[] = [];
const opened: Runs[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((runs) => runs.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const taskOf = (req: ModelRequest) => {
  const first = req.messages.find((m) => m.role === "user");
  return typeof first?.content === "string" ? first.content : "";
};

it("one run whose model hangs and one whose model fails hold none of a worker's other runs: they all finish meanwhile", async () => {
  const dir = mkdtempSync(join(tmpdir(), "stepwise-slow-run-"));
  dirs.push(dir);
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let hung!: () => void;
  const hanging = new Promise<void>((resolve) => (hung = resolve));
  const model: ChatModel = {
    id: "mixed",
    async generate(req) {
      const task = taskOf(req);
      if (task === "hang") {
        hung();
        await released;
      }
      if (task === "fail") throw new Error("the provider is down for this run");
      return { message: { role: "assistant", content: `done: ${task}` } };
    },
  };
  const runs = openRuns({ store: join(dir, "runs.db"), models: () => () => model, tools: () => [] });
  opened.push(runs);
  const settings = { workspace: dir };
  const slow = await runs.enqueue({ task: "hang", strategy: "react", model: "test:mixed", settings });
  const failing = await runs.enqueue({ task: "fail", strategy: "react", model: "test:mixed", settings });
  const quick = await Promise.all(Array.from({ length: 6 }, (_, i) => runs.enqueue({ task: `quick ${i}`, strategy: "react", model: "test:mixed", settings })));

  const ended = new Map<string, RunOutcome | Error>();
  let othersEnded!: () => void;
  const allOthersEnded = new Promise<void>((resolve) => (othersEnded = resolve));
  const stop = new AbortController();
  // Three at once: the hung run keeps one driver, and the other two drive the seven others in turn.
  const worker = workRuns(runs, {
    signal: stop.signal,
    concurrency: 3,
    onRun: (run: RunRecord, result) => {
      ended.set(run.id, result);
      if ([failing, ...quick].every((id) => ended.has(id))) othersEnded();
    },
  });
  await hanging;
  await allOthersEnded;
  expect(ended.has(slow)).toBe(false);
  for (const id of quick) expect(await runs.get(id)).toMatchObject({ status: "final", answer: expect.stringMatching(/^done: quick/) });
  expect(await runs.get(failing)).toMatchObject({ status: "failed" });

  release();
  stop.abort();
  await worker;
});
