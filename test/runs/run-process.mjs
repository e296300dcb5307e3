// A process that drives runs through the package's public API only (the built dist/), for the
// takeover and fencing tests. Usage:
//   node run-process.mjs start  <store> <log-file> <hold-at> [lease-ms]
//   node run-process.mjs resume <store> <log-file> <hold-at> <run-id>
//   node run-process.mjs work   <store> <log-file> <hold-at>
// The run calls the tool `append` with n = 1..5, one call a turn; each call appends "n" to the log
// file. The call n = <hold-at> prints "holding n" once its line is written and then waits for a
// line on stdin before it returns. Every recorded event prints "event <seq> <type>"; the end prints
// "outcome <status>", a failure "error <message>" (exit 1). With RUN_APPROVAL set, a started run has that
// --approval mode, with RUN_STRATEGY that strategy (the compiler plans the first call as its one task);
// with APPROVE_PENDING=1, a resume approves every call the run waits on.
import { appendFileSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { defineTool, openRuns, scriptedModel, workRuns } from "../../dist/index.js";

const [mode, store, logFile, holdAt, extra] = process.argv.slice(2);
const CALLS = 5;
const say = (line) => process.stdout.write(`${line}\n`);

const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once("line", resolve));

// Each answer follows from the calls already in memory, so a resumed run picks up where it stopped.
const decide = (req) => {
  const made = req.messages.filter((m) => m.role === "assistant" && m.toolCalls?.length).length;
  return made < CALLS ? { toolCalls: [{ name: "append", arguments: { n: made + 1 } }] } : `appended ${CALLS}`;
};
const model = () => scriptedModel(Array.from({ length: 4 * CALLS }, () => decide));
const append = defineTool({
  name: "append",
  description: "Appends a number to the log file.",
  parameters: z.object({ n: z.number().int() }),
  async execute({ n }) {
    appendFileSync(logFile, `${n}\n`);
    if (String(n) === holdAt) {
      say(`holding ${n}`);
      await nextLine();
    }
    return `appended ${n}`;
  },
});

const runs = openRuns({
  store,
  models: () => {
    const chat = model();
    return () => chat;
  },
  tools: () => [append],
  ...(mode === "start" && extra ? { leaseMs: Number(extra) } : {}),
});
const onEvent = (event, seq) => say(`event ${seq} ${event.type}`);

/** Approves the calls of the run's last approval request. */
async function approveWaiting(runId) {
  let calls = [];
  for await (const { event } of runs.events(runId)) if (event.type === "approval-requested") calls = event.calls;
  return Object.fromEntries(calls.map((call) => [call.id, { action: "approve" }]));
}

try {
  if (mode === "start") {
    const approval = process.env.RUN_APPROVAL ? { approval: process.env.RUN_APPROVAL } : {};
    const run = await runs.start({ task: "append five numbers", strategy: process.env.RUN_STRATEGY ?? "todos", model: "test:appender", settings: { workspace: dirname(logFile), ...approval }, onEvent });
    say(`run ${run.id}`);
    say(`outcome ${(await run.done).status}`);
  } else if (mode === "resume") {
    const run = await runs.resume(extra, process.env.APPROVE_PENDING ? await approveWaiting(extra) : undefined, { onEvent });
    say(`resumed ${run.id}`);
    say(`outcome ${(await run.done).status}`);
  } else if (mode === "work") {
    const stop = new AbortController();
    await workRuns(runs, {
      signal: stop.signal,
      scanMs: 50,
      onRun: (run, result) => {
        say(result instanceof Error ? `error ${result.message}` : `outcome ${result.status}`);
        stop.abort();
      },
    });
  } else throw new Error(`unknown mode ${mode}`);
  await runs.close();
  process.exit(0);
} catch (error) {
  say(`error ${error instanceof Error ? error.message : String(error)}`);
  await runs.close().catch(() => undefined);
  process.exit(1);
}
