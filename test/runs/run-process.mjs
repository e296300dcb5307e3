// A process that drives runs through the package's public API only (the built dist/), for the
// takeover and fencing tests. Usage:
//   node run-process.mjs start  <store> <log-file> <hold-at> [lease-ms]
//   node run-process.mjs resume <store> <log-file> <hold-at> <run-id>
//   node run-process.mjs work   <store> <log-file> <hold-at>
//   node run-process.mjs fleet  <store> <log-file> <hold-at> <concurrency>
// The run calls the tool `append` with n = 1..5, one call a turn; each call appends "n" to the log
// file. The call n = <hold-at> prints "holding n" once its line is written and then waits for a
// line on stdin before it returns. Every recorded event prints "event <seq> <type>"; the end prints
// "outcome <status>", a failure "error <message>" (exit 1). A fleet worker drives up to <concurrency> runs at once
// until SIGTERM or SIGINT (it prints "stopping", then hands its runs back) and
// prints "outcome <run-id> <status>"; LEASE_MS sets its lease length. A task "append five numbers for <name>"
// logs "<name> <n>" and prints "holding <name> <n>". With RUN_APPROVAL set, a started run has that
// --approval mode, with RUN_STRATEGY that strategy (the compiler plans the first call as its one task;
// plan-and-execute plans one step, "append five numbers", and its replanner then answers); with
// APPROVE_PENDING=1, a resume approves every call the run waits on. With HOLD_MODEL_AT=n, the model
// call that would make call n prints "thinking n" and waits for a line on stdin before it answers.
import { appendFileSync } from "node:fs";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { z } from "zod";
import { defineTool, scriptedModel } from "../../dist/index.js";
import { openRuns, shutdownSignal, workRuns } from "../../dist/runs/index.js";

const [mode, store, logFile, holdAt, extra] = process.argv.slice(2);
const CALLS = 5;
const say = (line) => process.stdout.write(`${line}\n`);

const lines = createInterface({ input: process.stdin });
const nextLine = () => new Promise((resolve) => lines.once("line", resolve));

// Each answer follows from the calls already in memory, so a resumed run picks up where it stopped.
// A fleet's tasks are "append five numbers for <name>": each call carries the name, so the log tells the runs apart.
const decide = (req) => {
  const made = req.messages.filter((m) => m.role === "assistant" && m.toolCalls?.length).length;
  const task = req.messages.find((m) => m.role === "user")?.content;
  const run = typeof task === "string" ? / for (\S+)/.exec(task)?.[1] : undefined;
  return made < CALLS ? { toolCalls: [{ name: "append", arguments: { n: made + 1, ...(run ? { run } : {}) } }] } : `appended ${CALLS}`;
};
const scripted = () => scriptedModel(Array.from({ length: 4 * CALLS }, () => decide));
const holdAtCall = process.env.HOLD_MODEL_AT;
/** The agent's (or executor's) model; it waits where HOLD_MODEL_AT says, with its call in flight. */
const model = () => {
  const inner = scripted();
  return {
    id: inner.id,
    async generate(req) {
      const next = req.messages.filter((m) => m.role === "assistant" && m.toolCalls?.length).length + 1;
      if (String(next) === holdAtCall) {
        say(`thinking ${next}`);
        await nextLine();
      }
      return inner.generate(req);
    },
  };
};
// Plan-and-execute's planner plans the whole job as one step; asked again (the replanner), it answers.
const stepPlanner = scriptedModel(Array.from({ length: 4 }, () => (req) => (req.messages[0]?.role === "system" ? JSON.stringify({ steps: ["append five numbers"] }) : JSON.stringify({ answer: `appended ${CALLS}` }))));
const append = defineTool({
  name: "append",
  description: "Appends a number to the log file.",
  parameters: z.object({ n: z.number().int(), run: z.string().optional() }),
  async execute({ n, run }) {
    appendFileSync(logFile, run ? `${run} ${n}\n` : `${n}\n`);
    if (String(n) === holdAt) {
      say(run ? `holding ${run} ${n}` : `holding ${n}`);
      await nextLine();
    }
    return `appended ${n}`;
  },
});

const runs = openRuns({
  store,
  models: (_spec, strategy) => {
    const chat = model();
    return (role) => (strategy === "plan-execute" && role === "planner" ? stepPlanner : chat);
  },
  tools: () => [append],
  ...(mode === "start" && extra ? { leaseMs: Number(extra) } : {}),
  ...(process.env.LEASE_MS ? { leaseMs: Number(process.env.LEASE_MS) } : {}),
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
  } else if (mode === "fleet") {
    const shutdown = shutdownSignal(() => say("stopping"));
    say("working");
    await workRuns(runs, {
      signal: shutdown.signal,
      concurrency: Number(extra),
      onRun: (run, result) => say(result instanceof Error ? `error ${run.id} ${result.message}` : `outcome ${run.id} ${result.status}`),
    });
    shutdown.dispose();
  } else throw new Error(`unknown mode ${mode}`);
  await runs.close();
  process.exit(0);
} catch (error) {
  say(`error ${error instanceof Error ? error.message : String(error)}`);
  await runs.close().catch(() => undefined);
  process.exit(1);
}
